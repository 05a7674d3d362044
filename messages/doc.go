// Package messages is the wire vocabulary of the engine: the JSON-RPC 2.0
// envelope, the MCP request/result/notification types of every legacy
// protocol version (2024-11-05 through 2025-11-25), the codec (sonic), and
// the validation every received frame goes through.
//
// Only the envelope is decoded on the reader's path (DecodeFrame): params and
// results stay raw until the goroutine that wants them decodes them, so the
// session actor never spends time on payloads.
package messages
