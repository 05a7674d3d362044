package streamable

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/internal/httpcore"
)

// A POST carries, over HTTP/1.1 and over h2c alike, the configured
// headers, the engine's (which replace configured ones of the same name),
// the caller's that nothing else sets, and the session, version and
// 2026-07-28 headers, which replace the caller's.
func TestPostsCarryTheirHeaders(t *testing.T) {
	sent := map[bool][]http.Header{}
	for _, h2c := range []bool{true, false} {
		s := newServerOver(t, h2c)
		c, col := dial(t, s, &Dialer{Client: s.client, Header: http.Header{
			"X-Configured": {"a", "b"},
			"Accept":       {"text/plain"},
			"User-Agent":   {"configured-agent"},
		}})
		initialize(t, s, c, col, "session-1", "2025-11-25", echoResult)

		m := httpcore.MessageOf(request(1, messages.MethodToolsList))
		m.Header = http.Header{
			"X-Caller":       {"c"},
			"Mcp-Session-Id": {"the caller's"},
			"User-Agent":     {"caller-agent"},
		}
		require.NoError(t, c.Send(m))
		legacy := s.next(t, http.MethodPost)
		col.next(t)

		// As the session sends a 2026-07-28 request: the _meta spliced
		// into the frame, the version beside it, the params without it.
		params := fmt.Sprintf(`{"name":"echo","_meta":{%q:%q}}`, messages.MetaProtocolVersion, messages.Version20260728)
		require.NoError(t, c.Send(transport.Message{
			Frame:   messages.AppendRequest(nil, messages.NumberID(2), messages.MethodToolsCall, []byte(params)),
			Kind:    messages.KindRequest,
			ID:      messages.NumberID(2),
			Method:  messages.MethodToolsCall,
			Params:  []byte(`{"name":"echo"}`),
			Version: messages.Version20260728,
		}))
		modern := s.next(t, http.MethodPost)
		col.next(t)

		for _, h := range []http.Header{legacy.Header, modern.Header} {
			h.Del("Accept-Encoding") // net/http asks for gzip on its own
			sent[h2c] = append(sent[h2c], h)
		}
	}
	assert.Equal(t, sent[false], sent[true])
	legacy, modern := sent[true][0], sent[true][1]
	assert.Equal(t, []string{"a", "b"}, legacy.Values("X-Configured"))
	assert.Equal(t, "application/json, text/event-stream", legacy.Get("Accept"))
	assert.Equal(t, "configured-agent", legacy.Get("User-Agent"))
	assert.Equal(t, "c", legacy.Get("X-Caller"))
	assert.Equal(t, []string{"session-1"}, legacy.Values("Mcp-Session-Id"))
	assert.Equal(t, "tools/call", modern.Get("Mcp-Method"))
	assert.Equal(t, "echo", modern.Get("Mcp-Name"))
}
