package transport

import (
	"errors"
	"fmt"
)

// SessionInfo is what the session learned in its handshake that a
// request connection needs (RequestConn.Negotiated).
type SessionInfo struct {
	// ProtocolVersion is the negotiated MCP protocol version (Streamable
	// HTTP sends it as the MCP-Protocol-Version header from 2025-06-18 on).
	ProtocolVersion string
	// Listen is true when the application asked for something that
	// arrives outside of request answers: a notification handler, a
	// resource subscription, or a sampling, elicitation or roots handler.
	// Streamable HTTP opens its optional standalone GET stream only then,
	// before it sends notifications/initialized when told during the
	// handshake.
	Listen bool
}

// ErrSessionExpired means the server no longer knows the connection's
// session (Streamable HTTP: 404 for a request carrying a known
// Mcp-Session-Id). The session treats it as a lost connection: pending calls
// fail and the supervisor re-initializes a new session under its backoff
// policy.
var ErrSessionExpired = errors.New("mcpengine/transport: the server expired the session")

// CodeRequestFailed is the JSON-RPC error code of the answer a transport
// synthesizes for one request that failed below JSON-RPC (an HTTP 5xx, a
// request timeout, a refused connection) while the connection as a whole
// stays usable: the caller of that request gets an error, the session goes
// on. The synthesized error's data is a RequestFailure object. The code is
// in the range JSON-RPC reserves for implementation-defined server errors.
const CodeRequestFailed = -32050

// RequestFailure is the data of a CodeRequestFailed error.
type RequestFailure struct {
	// Status is the HTTP status code, 0 when no response arrived.
	Status int `json:"status,omitempty"`
	// Reason says what failed ("HTTP 503 Service Unavailable", "timeout"),
	// never a header value or a credential.
	Reason string `json:"reason"`
	// Unreachable is true when the request never reached the server
	// (Unreachable: refused, unresolvable host, TLS failure): a session that
	// was never ready gives up on it at once.
	Unreachable bool `json:"unreachable,omitempty"`
	// LocalResources names the errno ("EMFILE", "ENFILE", "ENOBUFS",
	// "ENOMEM") when the request failed because this process ran out of
	// descriptors or buffer memory; the session hands the caller a
	// *LocalResourceError instead of the JSON-RPC error.
	LocalResources string `json:"localResources,omitempty"`
}

// LocalResourceError returns the *LocalResourceError f describes, or nil
// when f is no local exhaustion.
func (f RequestFailure) LocalResourceError() *LocalResourceError {
	errno, ok := ErrnoByName(f.LocalResources)
	if !ok {
		return nil
	}
	return &LocalResourceError{Op: f.Reason, Errno: errno}
}

func (f RequestFailure) String() string {
	if f.Status != 0 {
		return fmt.Sprintf("HTTP %d: %s", f.Status, f.Reason)
	}
	return f.Reason
}

// TryWriter is implemented by connections that can write without ever
// blocking. TryWriteFrames writes all the frames at once, or nothing:
// written is false when the write would have had to wait (a full pipe, a
// batch too large to write atomically), and the caller then hands the
// frames to a goroutine that may block. It lets a caller goroutine write
// its own request when the session is idle, with no hand-off, yet never
// wait on a server that stopped reading.
type TryWriter interface {
	TryWriteFrames(frames ...[]byte) (written bool, err error)
}
