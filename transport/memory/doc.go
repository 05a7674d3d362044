// Package memory provides an in-process transport: a full-duplex,
// frame-preserving pipe between two transport.Conn ends, for tests and for
// embedding an MCP server in the engine's own process.
//
// An idle pipe costs no goroutine and a few hundred bytes: each direction is
// a mutex-guarded queue with two condition variables. Writes copy the frames
// (callers may reuse their slices) and block only when the direction's queue
// is full (MaxQueuedFrames frames or MaxQueuedBytes bytes), until the reader
// catches up or either end closes.
//
// A read that had to wait yields the processor once it has its frame. Two
// goroutines that hand each other frames through a pipe (a caller and an
// in-process server) otherwise run back to back on the processor's
// "next" slot, which inherits the time slice: with thousands of sessions a
// few pairs kept the processors for whole slices while most sessions
// completed nothing for seconds (BenchmarkFairness in the root package).
// Transports that wait in the kernel (stdio, sockets) are woken through
// the network poller, in order, and need no such yield. Yielding on every
// such read rather than every few is what keeps 10,000 sessions fair; it
// costs throughput that only the unfair chains had (BenchmarkFairness,
// 10,000 sessions: 144,000 → 75,000 calls/s, longest call 6.5 s → 0.3 s).
package memory
