// Package memory provides an in-process transport: a full-duplex,
// frame-preserving pipe between two transport.Conn ends, for tests and for
// embedding an MCP server in the engine's own process.
//
// An idle pipe costs no goroutine and a few hundred bytes: each direction is
// a mutex-guarded queue with two condition variables. Writes copy the frames
// (callers may reuse their slices) and block only when the direction's queue
// is full (MaxQueuedFrames frames or MaxQueuedBytes bytes), until the reader
// catches up or either end closes.
package memory
