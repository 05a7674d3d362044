package httpx

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRedactHeaderShowsOnlyPublicValues(t *testing.T) {
	h := Merge(Bearer("s3cret-token"), APIKey("X-Api-Key", "key-value"), http.Header{
		"Accept":               {"application/json, text/event-stream"},
		"Mcp-Session-Id":       {"sess-abcdef"},
		"Mcp-Protocol-Version": {"2025-06-18"},
		"X-Custom":             {"whatever"},
	})
	got := RedactHeader(h)
	assert.Equal(t, "Accept: application/json, text/event-stream; Authorization: [redacted]; "+
		"Mcp-Protocol-Version: 2025-06-18; Mcp-Session-Id: [redacted]; X-Api-Key: [redacted]; X-Custom: [redacted]", got)
	for _, secret := range []string{"s3cret-token", "key-value", "sess-abcdef", "whatever"} {
		assert.NotContains(t, got, secret)
	}
	assert.True(t, IsPublicHeader("content-type"))
	assert.False(t, IsPublicHeader("cookie"))
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.com/mcp":                          "https://example.com/mcp",
		"https://user:pw@example.com:8443/mcp?token=abc#f": "https://example.com:8443/mcp?[redacted]#[redacted]",
		"http://127.0.0.1:3000/sse?":                       "http://127.0.0.1:3000/sse?[redacted]",
		"http://[::1]:80/a%2Fb":                            "http://[::1]:80/a%2Fb",
		"://bad url with token":                            "[invalid URL]",
	} {
		assert.Equal(t, want, RedactURL(in), in)
	}
}

func TestScrubberRemovesEchoedSecrets(t *testing.T) {
	h := Merge(Bearer("tok-abcdef"), APIKey("X-Key", "key-123456"), http.Header{"Accept": {"text/event-stream"}, "X-Flag": {"1"}})
	s := NewScrubber(h, "https://bob:hunter22@example.com/mcp?api_key=qk-9999&x=ab")
	text := `401: bad header "Authorization: Bearer tok-abcdef"; key key-123456; user bob, password hunter22, query qk-9999; accept text/event-stream; flag 1; x=ab`
	got := s.Scrub(text)
	for _, secret := range []string{"tok-abcdef", "key-123456", "hunter22", "qk-9999"} {
		assert.NotContains(t, got, secret)
	}
	assert.Contains(t, got, "text/event-stream", "public header values are left alone")
	assert.Contains(t, got, "flag 1", "values too short to be secrets are left alone")

	s2 := s.With("sess-777777")
	assert.Equal(t, "id [redacted]", s2.Scrub("id sess-777777"))
	assert.Equal(t, "id sess-777777", s.Scrub("id sess-777777"), "With copies")
	assert.Equal(t, "x", (*Scrubber)(nil).Scrub("x"))
}
