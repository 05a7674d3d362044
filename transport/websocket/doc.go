// Package websocket implements an MCP client transport over WebSocket: one
// JSON-RPC message (or batch array) per text message, under the "mcp"
// subprotocol, on top of github.com/coder/websocket.
//
// MCP's specification does not define a WebSocket transport; this one follows
// the convention several servers and SDKs share: the client asks for the
// "mcp" subprotocol, and a server that does not agree is refused, because a
// plain WebSocket endpoint that happens to answer the upgrade is almost
// certainly not an MCP server.
//
// # Cost of a connection
//
// A connection owns no goroutine: the session's reader blocks in ReadFrame,
// and Close runs the close handshake on a goroutine it waits for. The
// library holds a 4 KiB read buffer and a 4 KiB write buffer per connection
// (taken from pools at Dial, returned at Close), even while idle. Each frame
// is written and flushed as its own message: the library has no way to put
// several messages in one write.
//
// # Limits and errors
//
// A received message longer than Dialer.MaxFrameBytes fails the connection
// with *transport.FrameTooLargeError as soon as the limit is passed (the
// library stops reading there and closes with status 1009). A binary message
// fails it with ErrBinaryMessage, and the following Close uses status 1003
// (unsupported data). A close frame with status 1000 or 1001 from the server
// is io.EOF; any other status is an error that coder's CloseStatus reads; a
// connection that ends without a close frame is io.ErrUnexpectedEOF.
package websocket
