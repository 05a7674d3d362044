package demoserver

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

// legacyOpen opens a legacy stream at path and returns its reader and the
// endpoint it advertised.
func legacyOpen(t *testing.T, hh *httpHarness, path string) (*sseReader, string) {
	t.Helper()
	resp := hh.do(http.MethodGet, path, nil, http.Header{"Accept": {"text/event-stream"}})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, isSSE(resp))
	r := newSSEReader(resp)
	e := r.mustNext(t)
	require.Equal(t, "endpoint", e.event)
	return r, e.data
}

// legacyPost POSTs a frame to the advertised endpoint.
func legacyPost(t *testing.T, hh *httpHarness, endpoint string, frame []byte) *http.Response {
	t.Helper()
	return hh.do(http.MethodPost, endpoint, frame, http.Header{"Content-Type": {"application/json"}})
}

func TestLegacyEndpointFlow(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{})
	r, endpoint := legacyOpen(t, hh, PathSSE)
	require.True(t, strings.HasPrefix(endpoint, PathMessage+"?sessionId="), endpoint)
	u, err := url.Parse(endpoint)
	require.NoError(t, err)
	assert.Equal(t, []string{u.Query().Get("sessionId")}, hh.h.SSE.SessionIDs())

	init := messages.AppendRequest(nil, messages.NumberID(1), messages.MethodInitialize,
		encodeParams(t, &messages.InitializeParams{ProtocolVersion: messages.Version20241105}))
	resp := legacyPost(t, hh, endpoint, init)
	assert.Equal(t, http.StatusAccepted, resp.StatusCode)
	e, m := r.mustMessage(t)
	assert.Equal(t, "message", e.event)
	require.Nil(t, m.Error)
	assert.Contains(t, string(m.Result), messages.Version20241105)

	require.Equal(t, http.StatusAccepted, legacyPost(t, hh, endpoint, messages.AppendNotification(nil, messages.NotificationInitialized, nil)).StatusCode)
	call := messages.AppendRequest(nil, messages.NumberID(2), messages.MethodToolsCall,
		encodeParams(t, &messages.CallToolParams{Name: "progress", Arguments: map[string]any{"steps": 2}, Meta: messages.WithProgressToken(nil, messages.NumberID(5))}))
	require.Equal(t, http.StatusAccepted, legacyPost(t, hh, endpoint, call).StatusCode)
	_, m = r.mustMessage(t)
	assert.Equal(t, messages.NotificationProgress, m.Method)
	_, m = r.mustMessage(t)
	assert.Equal(t, messages.NotificationProgress, m.Method)
	_, m = r.mustMessage(t)
	assert.Equal(t, messages.NumberID(2), m.ID)

	// Errors: unknown session, invalid body.
	assert.Equal(t, http.StatusNotFound, legacyPost(t, hh, PathMessage+"?sessionId=nope", init).StatusCode)
	bad := legacyPost(t, hh, endpoint, []byte("{oops"))
	assert.Equal(t, http.StatusBadRequest, bad.StatusCode)
	body, err := io.ReadAll(bad.Body)
	require.NoError(t, err)
	assert.Contains(t, string(body), `"code":-32700`, "a parse error, as on the Streamable endpoint")
	assert.Equal(t, http.StatusMethodNotAllowed, hh.do(http.MethodGet, PathMessage, nil, nil).StatusCode)
}

func TestLegacySessionEndsWithItsStream(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{})
	resp := hh.do(http.MethodGet, PathSSE, nil, nil)
	r := newSSEReader(resp)
	endpoint := r.mustNext(t).data
	awaitStats(t, hh.srv, func(s Stats) bool { return s.ActiveSessions == 1 })
	require.NoError(t, resp.Body.Close())
	awaitStats(t, hh.srv, func(s Stats) bool { return s.ActiveSessions == 0 })
	assert.Equal(t, http.StatusNotFound, legacyPost(t, hh, endpoint, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)).StatusCode)
}

func TestLegacyCrossOriginEndpoint(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{LegacyEndpointOrigin: "http://evil.example:8080/"})
	_, endpoint := legacyOpen(t, hh, PathSSE)
	assert.True(t, strings.HasPrefix(endpoint, "http://evil.example:8080"+PathMessage+"?sessionId="), endpoint)
}

func TestLegacyOnlyModeAnswersTheProbe(t *testing.T) {
	for _, status := range []int{0, http.StatusNotFound, http.StatusBadRequest} {
		want := status
		if want == 0 {
			want = http.StatusMethodNotAllowed
		}
		t.Run(http.StatusText(want), func(t *testing.T) {
			hh := startHTTP(t, Options{Versions: []string{messages.Version20241105}}, HTTPOptions{LegacyOnly: true, LegacyProbeStatus: status})
			c := hh.client()
			_, resp := c.send(messages.MethodInitialize, &messages.InitializeParams{ProtocolVersion: messages.LatestVersion})
			assert.Equal(t, want, resp.StatusCode)
			_, _ = io.Copy(io.Discard, resp.Body)

			// The fallback: GET on the same URL opens a legacy stream.
			r, endpoint := legacyOpen(t, hh, PathStreamable)
			init := messages.AppendRequest(nil, messages.NumberID(1), messages.MethodInitialize,
				encodeParams(t, &messages.InitializeParams{ProtocolVersion: messages.LatestVersion}))
			require.Equal(t, http.StatusAccepted, legacyPost(t, hh, endpoint, init).StatusCode)
			_, m := r.mustMessage(t)
			require.Nil(t, m.Error)
			assert.Contains(t, string(m.Result), messages.Version20241105)

			// /sse works as well.
			legacyOpen(t, hh, PathSSE)
		})
	}
}

func TestLegacyFaultsAndExpiry(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{FailNth: 2})
	r, endpoint := legacyOpen(t, hh, PathSSE)
	init := messages.AppendRequest(nil, messages.NumberID(1), messages.MethodInitialize,
		encodeParams(t, &messages.InitializeParams{ProtocolVersion: messages.Version20241105}))
	require.Equal(t, http.StatusAccepted, legacyPost(t, hh, endpoint, init).StatusCode)
	r.mustMessage(t)
	ping := []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	assert.Equal(t, http.StatusServiceUnavailable, legacyPost(t, hh, endpoint, ping).StatusCode, "request POST 2")
	assert.Equal(t, http.StatusAccepted, legacyPost(t, hh, endpoint, ping).StatusCode)
	_, m := r.mustMessage(t)
	assert.Equal(t, messages.NumberID(2), m.ID)

	u, err := url.Parse(endpoint)
	require.NoError(t, err)
	require.True(t, hh.h.SSE.ExpireSession(u.Query().Get("sessionId")))
	_, err = r.next()
	assert.ErrorIs(t, err, io.EOF, "the stream ends with the session")
	assert.Equal(t, http.StatusNotFound, legacyPost(t, hh, endpoint, ping).StatusCode)
}
