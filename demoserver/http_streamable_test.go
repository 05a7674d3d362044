package demoserver

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

func TestStreamableInitializeThenJSONAnswers(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{})
	c := hh.client()
	res := c.initialize(messages.LatestVersion)
	assert.Equal(t, messages.LatestVersion, res.ProtocolVersion)
	assert.Len(t, c.session, 32)
	awaitStats(t, hh.srv, func(s Stats) bool { return s.Initialized == 1 })

	// A quick tool: application/json, with the response only.
	res2 := c.tool("echo", map[string]any{"text": "hi"})
	assert.Equal(t, "hi", text(t, res2))
	assert.Equal(t, []string{c.session}, hh.h.Streamable.SessionIDs())

	// A client response or notification gets 202 and no body.
	resp := c.post(messages.AppendResult(nil, messages.NumberID(999), []byte(`{}`)))
	assert.Equal(t, http.StatusAccepted, resp.StatusCode)
	body, _ := io.ReadAll(resp.Body)
	assert.Empty(t, body)
	awaitStats(t, hh.srv, func(s Stats) bool { return s.UnexpectedResponses == 1 })
}

func TestStreamableBatchGetsOneArray(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{})
	c := hh.client()
	c.initialize(messages.Version20250326)
	_, a := c.request(messages.MethodPing, nil)
	_, b := c.request(messages.MethodToolsCall, &messages.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}})
	resp := c.post([]byte("[" + string(a) + "," + string(b) + "]"))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	msgs, errs := messages.DecodeFrame(body)
	require.Empty(t, errs)
	require.Len(t, msgs, 2)
	for _, m := range msgs {
		assert.Nil(t, m.Error)
	}
}

func TestStreamableSSEAnswerIsPrimedAndEnds(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{AnswerMode: AnswerSSE})
	c := hh.client()
	// initialize itself is answered on a stream, Mcp-Session-Id in its
	// headers.
	id, resp := c.send(messages.MethodInitialize, &messages.InitializeParams{ProtocolVersion: messages.LatestVersion})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, isSSE(resp))
	c.session = resp.Header.Get(HeaderSessionID)
	require.NotEmpty(t, c.session)
	evs := readAllEvents(t, resp)
	require.Len(t, evs, 2)
	assert.Empty(t, evs[0].data, "priming event")
	assert.NotEmpty(t, evs[0].id)
	assert.Equal(t, 100, evs[0].retry)
	assert.Equal(t, "message", evs[1].event)
	assert.NotEqual(t, evs[0].id, evs[1].id)
	m := decodeOne(t, evs[1].data)
	assert.Equal(t, id, m.ID)
	c.version = messages.LatestVersion

	assert.Equal(t, "y", text(t, c.tool("echo", map[string]any{"text": "y"})))
}

func TestStreamableProgressOnTheAnswerStream(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{})
	c := hh.client()
	c.initialize(messages.LatestVersion)
	id, resp := c.send(messages.MethodToolsCall, &messages.CallToolParams{
		Name:      "progress",
		Arguments: map[string]any{"steps": 3, "intervalMs": 1},
		Meta:      messages.WithProgressToken(nil, messages.StringID("tok")),
	})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, isSSE(resp), "a request with a progress token gets a stream")
	evs := readAllEvents(t, resp)
	require.Len(t, evs, 5, "priming, 3 progress, response")
	for i := 1; i <= 3; i++ {
		m := decodeOne(t, evs[i].data)
		require.Equal(t, messages.NotificationProgress, m.Method)
		var p messages.ProgressParams
		require.NoError(t, messages.Unmarshal(m.Params, &p))
		assert.Equal(t, messages.StringID("tok"), p.ProgressToken)
		assert.InDelta(t, float64(i), p.Progress, 0)
	}
	m := decodeOne(t, evs[4].data)
	assert.Equal(t, id, m.ID)
	assert.Contains(t, string(m.Result), "completed 3 steps")

	// Without a token the same tool is answered as JSON.
	_, resp = c.send(messages.MethodToolsCall, &messages.CallToolParams{Name: "progress", Arguments: map[string]any{"steps": 2}})
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
}

func TestStreamableSamplingRequestOnThePOSTStream(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{})
	c := hh.client()
	c.initialize(messages.LatestVersion)
	id, resp := c.send(messages.MethodToolsCall, &messages.CallToolParams{Name: "sample", Arguments: map[string]any{"prompt": "2+2?"}})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, isSSE(resp))
	r := newSSEReader(resp)
	_, req := r.mustMessage(t)
	require.Equal(t, messages.KindRequest, req.Kind)
	require.Equal(t, messages.MethodSamplingCreateMessage, req.Method)

	// The answer goes in a POST of its own: 202, and the tool's result
	// follows on the first stream.
	raw, err := messages.Marshal(map[string]any{"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "4"}})
	require.NoError(t, err)
	ack := c.post(messages.AppendResult(nil, req.ID, raw))
	require.Equal(t, http.StatusAccepted, ack.StatusCode)

	_, m := r.mustMessage(t)
	require.Equal(t, id, m.ID)
	require.Nil(t, m.Error)
	assert.Contains(t, string(m.Result), `"4"`)
	_, err = r.next()
	assert.ErrorIs(t, err, io.EOF, "the stream ends after the response")
	assert.Zero(t, hh.srv.Stats().UnexpectedResponses)
}

func TestStreamableGetStreamCarriesUnrelatedNotifications(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{})
	c := hh.client()
	c.initialize(messages.LatestVersion)

	// Sent before any GET stream is open: buffered for it.
	assert.Equal(t, "sent notifications/tools/list_changed", text(t, c.tool("notify", map[string]any{"kind": "tools"})))

	resp := c.get("")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, isSSE(resp))
	r := newSSEReader(resp)
	_, m := r.mustMessage(t)
	assert.Equal(t, messages.NotificationToolsListChanged, m.Method)

	// While it is open, a second one is refused.
	second := c.get("")
	assert.Equal(t, http.StatusConflict, second.StatusCode)

	// Live: log messages and resources/updated for a subscription.
	assert.Equal(t, "sent", text(t, c.tool("log", map[string]any{"level": "error", "message": "oops"})))
	e, m := r.mustMessage(t)
	assert.Equal(t, messages.NotificationMessage, m.Method)
	assert.NotEmpty(t, e.id)
	require.Nil(t, c.call(messages.MethodResourcesSubscribe, &messages.SubscribeParams{URI: "demo://resource/2"}).Error)
	assert.Equal(t, "notified", text(t, c.tool("touch", map[string]any{"uri": "demo://resource/2"})))
	_, m = r.mustMessage(t)
	assert.Equal(t, messages.NotificationResourcesUpdated, m.Method)
}

func TestStreamableForcedJSONSendsServerRequestsOnTheGetStream(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{AnswerMode: AnswerJSON})
	c := hh.client()
	c.initialize(messages.LatestVersion)
	get := c.get("")
	require.Equal(t, http.StatusOK, get.StatusCode)
	r := newSSEReader(get)

	id, frame := c.request(messages.MethodToolsCall, &messages.CallToolParams{Name: "roots"})
	pending := c.postAsync(frame)
	_, req := r.mustMessage(t)
	require.Equal(t, messages.MethodRootsList, req.Method)
	raw, err := messages.Marshal(&messages.ListRootsResult{Roots: []messages.Root{{URI: "file:///tmp"}}})
	require.NoError(t, err)
	require.Equal(t, http.StatusAccepted, c.post(messages.AppendResult(nil, req.ID, raw)).StatusCode)
	resp := c.await(pending)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	m := readJSON(t, resp)
	assert.Equal(t, id, m.ID)
	assert.Contains(t, string(m.Result), "file:///tmp")
}

func TestStreamableSessionRules(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{})
	c := hh.client()

	// No session: only initialize may come without one.
	_, resp := c.send(messages.MethodPing, nil)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	get := c.get("")
	assert.Equal(t, http.StatusBadRequest, get.StatusCode)

	c.initialize(messages.Version20250618)

	// Unknown session: 404.
	other := hh.client()
	other.session = "nope"
	_, resp = other.send(messages.MethodPing, nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	// A protocol version the server does not accept: 400.
	c.version = "1999-01-01"
	_, resp = c.send(messages.MethodPing, nil)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	c.version = ""
	assert.Nil(t, c.call(messages.MethodPing, nil).Error, "no header: assumed 2025-03-26")
	c.version = messages.Version20250618

	// Accept and Content-Type are checked.
	h := c.headers()
	h.Set("Accept", "application/json")
	resp = hh.do(http.MethodPost, PathStreamable, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), h)
	assert.Equal(t, http.StatusNotAcceptable, resp.StatusCode)
	h = c.headers()
	h.Set("Content-Type", "text/plain")
	resp = hh.do(http.MethodPost, PathStreamable, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), h)
	assert.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode)

	// Bodies that are not JSON-RPC: 400 with a JSON-RPC error.
	resp = c.post([]byte(`{not json`))
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	m := readJSON(t, resp)
	require.NotNil(t, m.Error)
	assert.Equal(t, int64(messages.CodeParseError), m.Error.Code)
	resp = c.post([]byte(`{"jsonrpc":"1.0","id":1,"method":"ping"}`))
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)

	// A cross-origin browser request: 403.
	h = c.headers()
	h.Set("Origin", "http://evil.example")
	resp = hh.do(http.MethodPost, PathStreamable, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), h)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	h.Set("Origin", "http://localhost:3000")
	resp = hh.do(http.MethodPost, PathStreamable, []byte(`{"jsonrpc":"2.0","id":77,"method":"ping"}`), h)
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	// Unsupported method.
	resp = hh.do(http.MethodPut, PathStreamable, nil, c.headers())
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Equal(t, "GET, POST, DELETE", resp.Header.Get("Allow"))

	// DELETE ends the session; then it is unknown.
	assert.Equal(t, http.StatusOK, c.delete().StatusCode)
	_, resp = c.send(messages.MethodPing, nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	awaitStats(t, hh.srv, func(s Stats) bool { return s.ActiveSessions == 0 })
}

func TestStreamableFailedInitializeGetsNoSession(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{})
	c := hh.client()
	_, resp := c.send(messages.MethodInitialize, `{"capabilities":{}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Empty(t, resp.Header.Get(HeaderSessionID))
	m := readJSON(t, resp)
	require.NotNil(t, m.Error)
	awaitStats(t, hh.srv, func(s Stats) bool { return s.Sessions == 1 && s.ActiveSessions == 0 })
	assert.Empty(t, hh.h.Streamable.SessionIDs())
}

func TestStreamableCancelledRequestEndsItsStream(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{AnswerMode: AnswerSSE})
	c := hh.client()
	c.initialize(messages.LatestVersion)
	id, resp := c.send(messages.MethodToolsCall, &messages.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 3_600_000}})
	require.True(t, isSSE(resp))
	r := newSSEReader(resp)
	assert.Empty(t, r.mustNext(t).data, "priming")
	awaitStats(t, hh.srv, func(s Stats) bool { return s.ToolCalls["sleep"] == 1 })
	c.notify(messages.NotificationCancelled, &messages.CancelledParams{RequestID: id, Reason: "test"})
	_, err := r.next()
	assert.ErrorIs(t, err, io.EOF, "no response will come: the stream ends")
	awaitStats(t, hh.srv, func(s Stats) bool { return s.CancelledCalls == 1 })
}

func TestStreamableDuplicateIDInFlight(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{AnswerMode: AnswerSSE})
	c := hh.client()
	c.initialize(messages.LatestVersion)
	frame := messages.AppendRequest(nil, messages.NumberID(500), messages.MethodToolsCall,
		encodeParams(t, &messages.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 3_600_000}}))
	first := c.post(frame)
	require.True(t, isSSE(first))
	awaitStats(t, hh.srv, func(s Stats) bool { return s.ToolCalls["sleep"] == 1 })
	second := c.post(frame)
	assert.Equal(t, http.StatusBadRequest, second.StatusCode)
	body, _ := io.ReadAll(second.Body)
	assert.True(t, strings.Contains(string(body), "already in progress"), string(body))
}
