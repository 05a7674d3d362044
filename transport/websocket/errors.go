package websocket

import (
	"errors"
	"fmt"
	"net/http"
)

// Subprotocol is the WebSocket subprotocol the client requests and requires
// the server to agree to.
const Subprotocol = "mcp"

// ErrBinaryMessage is returned by ReadFrame when the server sent a binary
// message: MCP messages are JSON text, and a server that sends binary data is
// speaking something else. The connection is unusable afterwards.
var ErrBinaryMessage = errors.New("websocket: the server sent a binary message; MCP messages are text")

// HandshakeError reports a server that answered the WebSocket handshake but
// did not accept it as an MCP connection: an HTTP status other than 101, or
// an upgrade without the "mcp" subprotocol. Network failures (connection
// refused, timeouts) are not HandshakeErrors.
type HandshakeError struct {
	// Target is the Dialer's String (no credentials).
	Target string
	// Status is the HTTP status of the answer: 101 when the server upgraded
	// the connection but refused the subprotocol.
	Status int
	// Subprotocol is the one the server agreed to ("" for none).
	Subprotocol string
	// Err is the library's error, if any (its text repeats Status).
	Err error
}

func (e *HandshakeError) Error() string {
	if e.Status == http.StatusSwitchingProtocols {
		got := "none"
		if e.Subprotocol != "" {
			got = fmt.Sprintf("%q", e.Subprotocol)
		}
		return fmt.Sprintf("websocket: dial %s: the server did not agree to the %q subprotocol (it chose %s); is it an MCP server?",
			e.Target, Subprotocol, got)
	}
	return fmt.Sprintf("websocket: dial %s: the server answered the upgrade with HTTP %d %s", e.Target, e.Status, http.StatusText(e.Status))
}

func (e *HandshakeError) Unwrap() error { return e.Err }

// Budgeted tells supervisor.Classify to retry only under the session's
// restart budget: a refused subprotocol or a 4xx (wrong path, missing
// credentials) rarely fixes itself, while a 5xx is usually a proxy in front
// of a server that is restarting, retried without limit like a refused
// connection.
func (e *HandshakeError) Budgeted() bool { return e.Status < 500 }
