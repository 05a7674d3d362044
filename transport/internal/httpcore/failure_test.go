package httpcore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/httpx"
)

func TestFailureAnswer(t *testing.T) {
	f := transport.RequestFailure{Status: 502, Reason: "HTTP 502 Bad Gateway"}
	m, err := messages.DecodeMessage(FailureAnswer(messages.StringID("q"), f))
	require.NoError(t, err)
	assert.Equal(t, messages.StringID("q"), m.ID)
	require.NotNil(t, m.Error)
	assert.EqualValues(t, transport.CodeRequestFailed, m.Error.Code)
	assert.Equal(t, "request failed: HTTP 502 Bad Gateway", m.Error.Message)
	var back transport.RequestFailure
	require.NoError(t, messages.Unmarshal(m.Error.Data, &back))
	assert.Equal(t, f, back)
}

func TestStatusFailureQuotesAShortScrubbedExcerpt(t *testing.T) {
	scrub := httpx.NewScrubber(httpx.Bearer("tok-abcdef"))
	body := "denied for Bearer tok-abcdef\x00\x1b[31m\n\t" + strings.Repeat("é", 500)
	resp := &http.Response{StatusCode: 401, Status: "401 Unauthorized", Body: io.NopCloser(strings.NewReader(body))}
	f := StatusFailure(resp, scrub)
	assert.Equal(t, 401, f.Status)
	assert.True(t, strings.HasPrefix(f.Reason, "HTTP 401 Unauthorized: denied for [redacted] "), f.Reason)
	assert.NotContains(t, f.Reason, "\x00")
	assert.NotContains(t, f.Reason, "\x1b")
	assert.LessOrEqual(t, len(f.Reason), len("HTTP 401 Unauthorized: ")+ExcerptBytes+len("…"))
	assert.True(t, strings.HasSuffix(f.Reason, "…"))
	assert.True(t, strings.ToValidUTF8(f.Reason, "?") == f.Reason, "cut on a rune boundary")

	resp = &http.Response{StatusCode: 500, Body: http.NoBody}
	assert.Equal(t, "HTTP 500 Internal Server Error", StatusFailure(resp, nil).Reason)
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestErrorReasonNeverRepeatsTheURL(t *testing.T) {
	scrub := httpx.NewScrubber(nil, "http://h/mcp?token=qs-secret")
	err := &url.Error{Op: "Post", URL: "http://h/mcp?token=qs-secret", Err: errors.New("connection refused")}
	assert.Equal(t, "connection refused", ErrorReason(err, scrub))
	assert.Equal(t, "timeout", ErrorReason(&url.Error{Op: "Get", URL: "x", Err: timeoutErr{}}, scrub))
	assert.Equal(t, "timeout", ErrorReason(fmt.Errorf("wrapped: %w", context.DeadlineExceeded), scrub))
	assert.Equal(t, "bad [redacted]", ErrorReason(errors.New("bad qs-secret"), scrub))
	assert.Equal(t, failureOf("connection refused"), ErrorFailure(err, scrub))
}

func failureOf(reason string) transport.RequestFailure {
	return transport.RequestFailure{Reason: reason}
}

func TestMediaType(t *testing.T) {
	assert.Equal(t, "text/event-stream", MediaType("Text/Event-Stream; charset=utf-8"))
	assert.Equal(t, "application/json", MediaType(" application/json "))
	assert.Equal(t, "", MediaType(""))
}

func TestReadCapped(t *testing.T) {
	b, err := ReadCapped(strings.NewReader("12345"), 5, -1)
	require.NoError(t, err)
	assert.Equal(t, "12345", string(b))
	b, err = ReadCapped(iotest.OneByteReader(strings.NewReader("12345")), 5, 5)
	require.NoError(t, err)
	assert.Equal(t, "12345", string(b))

	_, err = ReadCapped(strings.NewReader("123456"), 5, -1)
	var tl *transport.FrameTooLargeError
	require.ErrorAs(t, err, &tl)
	assert.Equal(t, 5, tl.Limit)
	_, err = ReadCapped(strings.NewReader(""), 5, 6)
	assert.ErrorAs(t, err, &tl, "a declared length over the cap fails before reading")
	_, err = ReadCapped(iotest.ErrReader(io.ErrUnexpectedEOF), 5, -1)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	b, err = ReadCapped(strings.NewReader(""), 5, 0)
	require.NoError(t, err)
	assert.Empty(t, b)
}

func TestNewRequestHeaders(t *testing.T) {
	base := http.Header{"Authorization": {"Bearer x"}, "User-Agent": {"custom"}}
	req, err := NewRequest(context.Background(), http.MethodPost, "http://h/mcp", base, []byte(`{}`))
	require.NoError(t, err)
	assert.Equal(t, "application/json", req.Header.Get("Content-Type"))
	assert.Equal(t, "application/json, text/event-stream", req.Header.Get("Accept"))
	assert.Equal(t, "custom", req.Header.Get("User-Agent"))
	assert.EqualValues(t, 2, req.ContentLength)
	req.Header.Set("X-New", "1")
	assert.Empty(t, base.Get("X-New"), "the base map is not modified")

	req, err = NewRequest(context.Background(), http.MethodGet, "http://h/mcp", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "text/event-stream", req.Header.Get("Accept"))
	assert.Equal(t, "mcpengine", req.Header.Get("User-Agent"))
	assert.Empty(t, req.Header.Get("Content-Type"))
}
