// Package transport defines how the engine exchanges JSON-RPC frames with an
// MCP server, independent of the wire (stdio subprocess, in-process memory
// pipe, and later Streamable HTTP, legacy SSE and WebSocket).
//
// A Dialer makes a Conn; a Conn carries whole frames in both directions.
// The engine's session actor owns one Conn at a time and replaces it on
// every restart, so a Conn never has to reconnect by itself.
package transport
