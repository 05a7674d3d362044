package actors

// processTableBuckets is how many concurrent maps the actor system's
// process table is split into. protoactor builds 1,024, each of 32 locked
// shards: 2.8 MB per actor system, which an engine holding a few hundred
// sessions pays as ~14 KiB per session, and a map group per process while
// the shards are nearly empty. One map is 32 locked shards, still more
// locks than the table is contended for: it is written when a process is
// spawned or stopped, and a Send finds its process through the PID, which
// keeps it after the first lookup. The table grows with the sessions, not
// ahead of them.
const processTableBuckets = 1
