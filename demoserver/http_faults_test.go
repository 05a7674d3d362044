package demoserver

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

func TestDroppedAnswerStreamResumesWithTheResponseExactlyOnce(t *testing.T) {
	for _, abort := range []bool{false, true} {
		name := "clean end"
		if abort {
			name = "aborted"
		}
		t.Run(name, func(t *testing.T) {
			// Every second answer stream is dropped: initialize's is kept.
			hh := startHTTP(t, Options{}, HTTPOptions{AnswerMode: AnswerSSE, DropStreamEvery: 2, DropAbort: abort})
			c := hh.client()
			c.initialize(messages.LatestVersion)
			id, resp := c.send(messages.MethodToolsCall, &messages.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "once"}})
			require.Equal(t, http.StatusOK, resp.StatusCode)
			r := newSSEReader(resp)
			prime := r.mustNext(t)
			assert.Empty(t, prime.data)
			require.NotEmpty(t, prime.id)
			assert.Equal(t, 100, prime.retry)
			_, err := r.next()
			if abort {
				assert.Error(t, err)
				assert.NotErrorIs(t, err, io.EOF)
			} else {
				assert.ErrorIs(t, err, io.EOF, "dropped before the response")
			}

			// GET with Last-Event-ID replays the rest: the response, then the
			// stream ends. It is not dropped again.
			get := c.get(prime.id)
			require.Equal(t, http.StatusOK, get.StatusCode)
			evs := readAllEvents(t, get)
			require.Len(t, evs, 1)
			m := decodeOne(t, evs[0].data)
			assert.Equal(t, id, m.ID)
			assert.Contains(t, string(m.Result), "once")

			// Resuming after the last event: nothing more.
			again := c.get(evs[0].id)
			require.Equal(t, http.StatusOK, again.StatusCode)
			assert.Empty(t, readAllEvents(t, again))
		})
	}
}

func TestDropAfterEventsKeepsTheOrder(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{DropStreamEvery: 1, DropAfterEvents: 3})
	c := hh.client()
	c.initialize(messages.LatestVersion) // JSON: never dropped
	id, resp := c.send(messages.MethodToolsCall, &messages.CallToolParams{
		Name:      "progress",
		Arguments: map[string]any{"steps": 4},
		Meta:      messages.WithProgressToken(nil, messages.NumberID(9)),
	})
	require.True(t, isSSE(resp))
	first := readAllEvents(t, resp)
	require.Len(t, first, 3, "priming and two progress notifications, then the drop")
	get := c.get(first[2].id)
	rest := readAllEvents(t, get)
	require.Len(t, rest, 3, "two progress notifications and the response")
	var steps []float64
	for _, e := range append(first[1:], rest[:2]...) {
		var p messages.ProgressParams
		require.NoError(t, messages.Unmarshal(decodeOne(t, e.data).Params, &p))
		steps = append(steps, p.Progress)
	}
	assert.Equal(t, []float64{1, 2, 3, 4}, steps)
	assert.Equal(t, id, decodeOne(t, rest[2].data).ID)
}

func TestDropStreamEveryNth(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{AnswerMode: AnswerSSE, DropStreamEvery: 2})
	c := hh.client()
	c.initialize(messages.LatestVersion) // stream 1: kept
	id, resp := c.send(messages.MethodPing, nil)
	evs := readAllEvents(t, resp) // stream 2: dropped after priming
	require.Len(t, evs, 1)
	rest := readAllEvents(t, c.get(evs[0].id))
	require.Len(t, rest, 1)
	assert.Equal(t, id, decodeOne(t, rest[0].data).ID)
	assert.Nil(t, c.call(messages.MethodPing, nil).Error) // stream 3: kept
}

func TestResumeErrors(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{})
	c := hh.client()
	c.initialize(messages.LatestVersion)
	assert.Equal(t, http.StatusBadRequest, c.get("garbage").StatusCode)
	assert.Equal(t, http.StatusBadRequest, c.get("42-1").StatusCode, "unknown stream")
	assert.Equal(t, http.StatusBadRequest, c.get("0-99").StatusCode, "beyond the end")
}

func TestGetStreamResumesWhatItMissed(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{})
	c := hh.client()
	c.initialize(messages.LatestVersion)
	get := c.get("")
	r := newSSEReader(get)
	prime := r.mustNext(t)
	require.Empty(t, prime.data)

	text(t, c.tool("notify", map[string]any{"kind": "tools"}))
	e1, m := r.mustMessage(t)
	assert.Equal(t, messages.NotificationToolsListChanged, m.Method)
	text(t, c.tool("notify", map[string]any{"kind": "prompts"}))
	_, m = r.mustMessage(t)
	assert.Equal(t, messages.NotificationPromptsListChanged, m.Method)
	require.NoError(t, get.Body.Close())

	// While no GET stream is open, messages wait for the next one...
	text(t, c.tool("notify", map[string]any{"kind": "resources"}))
	// ...and a client that lost events resumes from the last one it saw:
	// the prompts notification again, then the buffered one.
	resumed := c.get(e1.id)
	require.Equal(t, http.StatusOK, resumed.StatusCode)
	r = newSSEReader(resumed)
	_, m = r.mustMessage(t)
	assert.Equal(t, messages.NotificationPromptsListChanged, m.Method)
	_, m = r.mustMessage(t)
	assert.Equal(t, messages.NotificationResourcesListChanged, m.Method)
}

func TestFailNthAndFailEvery(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{FailNth: 2, FailEvery: 5, FailStatus: http.StatusBadGateway})
	c := hh.client()
	c.initialize(messages.LatestVersion) // request POST 1 (the notification is not counted)
	_, resp := c.send(messages.MethodPing, nil)
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode, "request POST 2")
	for range 2 { // 3, 4
		assert.Nil(t, c.call(messages.MethodPing, nil).Error)
	}
	_, resp = c.send(messages.MethodPing, nil)
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode, "request POST 5")
	assert.Nil(t, c.call(messages.MethodPing, nil).Error, "the session goes on")
	assert.Equal(t, int64(3), hh.srv.Stats().Methods[messages.MethodPing], "failed requests never reach the session")
}

func TestFailGetsThenTheStreamOpens(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{FailGets: 1})
	c := hh.client()
	c.initialize(messages.LatestVersion)
	assert.Equal(t, http.StatusServiceUnavailable, c.get("").StatusCode)
	assert.Nil(t, c.call(messages.MethodPing, nil).Error, "POSTs are unaffected")
	get := c.get("")
	require.Equal(t, http.StatusOK, get.StatusCode)
}

func TestExpireAfterAndOnDemand(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{ExpireAfter: 3})
	c := hh.client()
	c.initialize(messages.LatestVersion) // 1
	assert.Nil(t, c.call(messages.MethodPing, nil).Error)
	assert.Nil(t, c.call(messages.MethodPing, nil).Error) // 3
	_, resp := c.send(messages.MethodPing, nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	_, resp = c.send(messages.MethodPing, nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	awaitStats(t, hh.srv, func(s Stats) bool { return s.ActiveSessions == 0 })

	// A new session; expired on demand with an open GET stream, which ends.
	c2 := hh.client()
	c2.initialize(messages.LatestVersion)
	get := c2.get("")
	r := newSSEReader(get)
	r.mustNext(t) // priming
	require.True(t, hh.h.Streamable.ExpireSession(c2.session))
	assert.False(t, hh.h.Streamable.ExpireSession(c2.session))
	_, err := r.next()
	assert.ErrorIs(t, err, io.EOF)
	_, resp = c2.send(messages.MethodPing, nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestSessionIdleTimeout(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{SessionIdleTimeout: 50 * time.Millisecond})
	c := hh.client()
	_, resp := c.send(messages.MethodInitialize, &messages.InitializeParams{ProtocolVersion: messages.LatestVersion})
	c.session = resp.Header.Get(HeaderSessionID)
	require.NotEmpty(t, c.session)
	awaitStats(t, hh.srv, func(s Stats) bool { return s.Sessions == 1 && s.ActiveSessions == 0 })
	_, resp = c.send(messages.MethodPing, nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestNoGetStreamAndNoDelete(t *testing.T) {
	hh := startHTTP(t, Options{}, HTTPOptions{NoGetStream: true, NoDelete: true})
	c := hh.client()
	c.initialize(messages.LatestVersion)
	get := c.get("")
	assert.Equal(t, http.StatusMethodNotAllowed, get.StatusCode)
	assert.Equal(t, "POST, DELETE", get.Header.Get("Allow"))
	assert.Equal(t, http.StatusMethodNotAllowed, c.delete().StatusCode)
	assert.Nil(t, c.call(messages.MethodPing, nil).Error)
}

func TestExitAfterAbortsTheWaitingAnswer(t *testing.T) {
	ended := make(chan error, 1)
	hh := startHTTP(t, Options{ExitAfter: 1}, HTTPOptions{SessionEnded: func(_ string, err error) { ended <- err }})
	c := hh.client()
	c.initialize(messages.LatestVersion)
	_, frame := c.request(messages.MethodPing, nil)
	a := <-c.postAsync(frame)
	require.Error(t, a.err, "the connection is aborted, like a server that died")
	select {
	case err := <-ended:
		assert.ErrorIs(t, err, ErrExitRequested)
	case <-time.After(testTimeout):
		t.Fatal("SessionEnded was not called")
	}
	_, resp := c.send(messages.MethodPing, nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestGarbageEveryOverHTTP(t *testing.T) {
	hh := startHTTP(t, Options{GarbageEvery: 2}, HTTPOptions{AnswerMode: AnswerSSE})
	c := hh.client()
	c.initialize(messages.LatestVersion) // response 1
	id, resp := c.send(messages.MethodPing, nil)
	evs := readAllEvents(t, resp)
	require.Len(t, evs, 3, "priming, garbage, response")
	assert.Equal(t, garbageNotJSON, evs[1].data)
	assert.Equal(t, id, decodeOne(t, evs[2].data).ID)
}
