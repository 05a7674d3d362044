package mcperr

import (
	"errors"
	"io"
	"testing"
	"time"
)

// TestMessagesStayAsDocumented: the text of each typed error, which docs
// and embedders' logs quote, word for word.
func TestMessagesStayAsDocumented(t *testing.T) {
	cause := errors.New("boom")
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&TimeoutError{Method: "tools/call", After: time.Second}, "mcpengine: tools/call timed out after 1s"},
		{&TimeoutError{Method: "ping", CallerDeadline: true}, "mcpengine: ping got no answer before the caller's deadline"},
		{&TimeoutError{Method: "ping", After: time.Second, CallerDeadline: true}, "mcpengine: ping got no answer before the caller's deadline (1s after it was sent)"},
		{&CapabilityError{Method: "tools/list", Capability: "tools"}, `mcpengine: server does not support tools/list (capability "tools" not declared)`},
		{&ProtocolError{Method: "ping", Reason: "r"}, "mcpengine: ping: the server's answer breaks JSON-RPC: r"},
		{&MethodNotInVersionError{Method: "ping", Version: "v"}, "mcpengine: ping does not exist in protocol version v"},
		{&ConnectionLostError{Cause: io.EOF}, "mcpengine: connection lost: EOF"},
		{&ClosedError{}, "mcpengine: session closed"},
		{&ClosedError{Cause: cause}, "mcpengine: session closed: boom"},
		{&ServerStderrError{Cause: io.EOF, Stderr: "a | b"}, "EOF (server stderr: a | b)"},
		{&ConnectError{Server: "x", Reason: "refused"}, "mcpengine: cannot reach x: refused"},
		{&ConnectError{Reason: "refused"}, "mcpengine: cannot reach the server: refused"},
		{&ConnectError{Server: "x", Reason: "too many open files", Local: true}, "mcpengine: cannot connect to x: too many open files"},
		{&AuthRefusedError{Status: 401, Reason: "r"}, "mcpengine: the server refused the handshake's credentials (HTTP 401 Unauthorized): r"},
		{&VersionMismatchError{Offered: "a", Answered: "b"}, `mcpengine: protocol version mismatch: offered a, server answered "b"`},
		{&NotModernError{Pinned: "p", Cause: cause}, "mcpengine: protocol p was pinned and the server does not answer server/discover in it: boom"},
		{&InputRequiredError{Method: "m", Rounds: 8, Requests: map[string]string{"b": "roots/list", "a": "sampling/createMessage"}},
			"mcpengine: m still needs input after 8 rounds (the limit): a: sampling/createMessage, b: roots/list"},
		{&InputRequestError{Method: "m", Key: "k", Request: "r", Err: ErrNoInputHandler},
			`mcpengine: m: input request "k" (r): mcpengine: no handler installed for this input request`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%T: %q, want %q", tc.err, got, tc.want)
		}
	}
}
