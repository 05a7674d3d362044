// Package loadgen drives MCP calls through an mcpengine.Engine and
// measures them, for engine load.
//
// Two load models: closed (sessions × calls in flight, the next call when
// one returns) and open (a total arrival rate; latency from each call's
// scheduled send time, so a stall is charged to every call it held up).
// Both can ramp (Stages), warm up, and churn sessions. Calls come from a
// Workload: a weighted mix of requests whose arguments may be Go
// templates, fed by a data file or generated from a tool's inputSchema.
//
// Every session records into sparse HDR histograms per request kind,
// merged at the end, so memory does not grow with the run's length. Each
// call is classified (transport, timeout, JSON-RPC error by code, tool
// isError, outputSchema mismatch, other). A sampler closes an interval
// once a second: a bounded timeline, the server processes' CPU and
// memory, and progress. It prints nothing; the CLI formats the Result,
// checks Thresholds and Compares runs.
package loadgen
