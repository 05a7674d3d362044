package gateway_test

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/gateway"
	"github.com/mcpengine/mcpengine/messages"
)

// sseEvent is one event of an event stream.
type sseEvent struct{ id, data string }

// sseReader reads an event stream one event at a time.
type sseReader struct{ sc *bufio.Scanner }

func newSSEReader(resp *http.Response) *sseReader {
	return &sseReader{sc: bufio.NewScanner(resp.Body)}
}

// next returns the next event, or false at the end of the stream.
func (r *sseReader) next() (sseEvent, bool) {
	var e sseEvent
	seen := false
	for r.sc.Scan() {
		line := r.sc.Text()
		switch {
		case line == "":
			if seen {
				return e, true
			}
		case strings.HasPrefix(line, "id: "):
			e.id, seen = strings.TrimPrefix(line, "id: "), true
		case strings.HasPrefix(line, "data: "):
			e.data, seen = e.data+strings.TrimPrefix(line, "data: "), true
		default:
			seen = true
		}
	}
	return e, false
}

// open sends a request to the aggregated endpoint and returns the
// response with its body unread.
func open(t *testing.T, method, url, body string, header ...string) *http.Response {
	t.Helper()
	var rd *strings.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(testCtx(t, 30*time.Second), method, url, nil)
	if rd != nil {
		req, err = http.NewRequestWithContext(testCtx(t, 30*time.Second), method, url, rd)
	}
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// TestAStreamCutMidAnswerIsResumedWithLastEventID: the client loses a
// POST's event stream after the server's elicitation request and before
// the tool's answer; it answers the elicitation, resumes the stream with
// Last-Event-ID, and gets the answer it missed, and nothing it had
// already.
func TestAStreamCutMidAnswerIsResumedWithLastEventID(t *testing.T) {
	_, gw := startGateway(t, gateway.Config{Servers: map[string]gateway.Server{"a": {Target: engineServe()}}})
	hdr := rawFrontSession(t, gw, "", `{"elicitation":{}}`)

	resp := open(t, http.MethodPost, gw.MCPURL(), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a__elicit","arguments":{"message":"name?"}}}`, hdr...)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	r := newSSEReader(resp)
	prime, ok := r.next()
	require.True(t, ok)
	assert.Empty(t, prime.data, "the stream starts with a priming event")
	assert.NotEmpty(t, prime.id)
	ask, ok := r.next()
	require.True(t, ok)
	m, err := messages.DecodeMessage([]byte(ask.data))
	require.NoError(t, err)
	require.Equal(t, messages.MethodElicitationCreate, m.Method)
	require.NotEqual(t, prime.id, ask.id)
	require.NoError(t, resp.Body.Close()) // the stream is cut before the answer

	status, body, _ := post(t, gw.MCPURL(), "", `{"jsonrpc":"2.0","id":`+m.ID.String()+`,"result":{"action":"accept","content":{"name":"Ada"}}}`, hdr...)
	require.Equal(t, http.StatusAccepted, status, "%s", body)

	resumed := open(t, http.MethodGet, gw.MCPURL(), "", append(hdr, "Last-Event-ID", ask.id)...)
	require.Equal(t, http.StatusOK, resumed.StatusCode)
	r = newSSEReader(resumed)
	var answer *messages.Message
	for answer == nil {
		e, ok := r.next()
		require.True(t, ok, "the stream ended without the answer")
		if e.data == "" {
			continue
		}
		m, err := messages.DecodeMessage([]byte(e.data))
		require.NoError(t, err)
		require.NotEqual(t, messages.MethodElicitationCreate, m.Method, "an event the client had is not sent again")
		if m.Kind == messages.KindResponse {
			answer = &m
		}
	}
	assert.Equal(t, messages.NumberID(1), answer.ID)
	require.Nil(t, answer.Error)
	assert.Contains(t, string(answer.Result), `action=accept content={\"name\":\"Ada\"}`)
	_, more := r.next()
	assert.False(t, more, "the resumed answer stream ends with its answer")
}

func TestResumingAnUnknownStreamIsRefused(t *testing.T) {
	_, gw := startGateway(t, gateway.Config{Servers: map[string]gateway.Server{"a": {Target: engineServe()}}})
	hdr := rawFrontSession(t, gw, "", `{}`)
	for _, id := range []string{"42-1", "nonsense"} {
		resp := open(t, http.MethodGet, gw.MCPURL(), "", append(hdr, "Last-Event-ID", id)...)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, id)
	}
}
