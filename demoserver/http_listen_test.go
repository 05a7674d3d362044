package demoserver

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestListenHTTPCloseEndsOpenStreams closes a server with a GET stream and
// an SSE answer in progress: Close returns, the streams end, and goleak
// (TestMain) finds nothing left behind.
func TestListenHTTPCloseEndsOpenStreams(t *testing.T) {
	srv := New(Options{})
	hs, err := srv.ListenHTTP("127.0.0.1:0", HTTPOptions{AnswerMode: AnswerSSE})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(hs.StreamableURL(), "http://127.0.0.1:"))
	assert.True(t, strings.HasSuffix(hs.StreamableURL(), PathStreamable))
	assert.True(t, strings.HasPrefix(hs.WebSocketURL(), "ws://127.0.0.1:"))
	assert.True(t, strings.HasSuffix(hs.SSEURL(), PathSSE))

	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	post := func(session string, body string) *http.Response {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, hs.StreamableURL(), bytes.NewReader([]byte(body)))
		require.NoError(t, err)
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		if session != "" {
			req.Header.Set(HeaderSessionID, session)
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	session := resp.Header.Get(HeaderSessionID)
	require.NotEmpty(t, session)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, hs.StreamableURL(), nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(HeaderSessionID, session)
	get, err := client.Do(req)
	require.NoError(t, err)
	defer get.Body.Close()
	require.Equal(t, http.StatusOK, get.StatusCode)

	sleep := post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":3600000}}}`)
	defer sleep.Body.Close()
	require.True(t, isSSE(sleep))
	awaitStats(t, srv, func(s Stats) bool { return s.ToolCalls["sleep"] == 1 })

	require.NoError(t, hs.Close(ctx))
	for _, body := range []io.Reader{get.Body, sleep.Body} {
		_, err := io.ReadAll(body) // both end
		assert.NoError(t, err)
	}
	assert.Zero(t, srv.Stats().ActiveSessions)

	req, err = http.NewRequestWithContext(ctx, http.MethodGet, hs.StreamableURL(), nil)
	require.NoError(t, err)
	_, err = client.Do(req)
	assert.Error(t, err, "nothing listens any more")
}
