package demoserver

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

func TestHandshake(t *testing.T) {
	srv := New(Options{Name: "demo", Version: "9.9"})
	conn, run := serve(t, srv)
	c := newClient(t, conn, nil)

	res := c.initialize(messages.Version20250326)
	assert.Equal(t, messages.Version20250326, res.ProtocolVersion)
	assert.Equal(t, "demo", res.ServerInfo.Name)
	assert.Equal(t, "9.9", res.ServerInfo.Version)
	assert.NotEmpty(t, res.Instructions)
	caps := res.Capabilities
	require.NotNil(t, caps.Tools)
	assert.True(t, caps.Tools.ListChanged)
	require.NotNil(t, caps.Resources)
	assert.True(t, caps.Resources.Subscribe)
	assert.True(t, caps.Resources.ListChanged)
	require.NotNil(t, caps.Prompts)
	assert.True(t, caps.Prompts.ListChanged)
	assert.NotNil(t, caps.Logging)
	assert.NotNil(t, caps.Completions)

	awaitStats(t, srv, func(s Stats) bool { return s.Initialized == 1 })
	assert.Equal(t, int64(1), srv.Stats().Methods[messages.MethodInitialize])

	// A second initialize is refused.
	werr := c.callErr(messages.MethodInitialize, &messages.InitializeParams{ProtocolVersion: messages.LatestVersion})
	assert.Equal(t, int64(messages.CodeInvalidRequest), werr.Code)

	require.NoError(t, conn.Close(context.Background()))
	require.NoError(t, run.wait(t))
	s := srv.Stats()
	assert.Equal(t, int64(1), s.Sessions)
	assert.Equal(t, int64(0), s.ActiveSessions)
}

func TestVersionNegotiation(t *testing.T) {
	cases := []struct {
		name      string
		opts      Options
		requested string
		want      string
	}{
		{"supported", Options{}, messages.Version20241105, messages.Version20241105},
		{"latest", Options{}, messages.LatestVersion, messages.LatestVersion},
		{"unknown gets newest", Options{}, "2099-01-01", messages.LatestVersion},
		{"restricted", Options{Versions: []string{messages.Version20241105, messages.Version20250326}}, messages.LatestVersion, messages.Version20250326},
		{"restricted match", Options{Versions: []string{messages.Version20241105, messages.Version20250326}}, messages.Version20241105, messages.Version20241105},
		{"answer override", Options{AnswerVersion: "1999-01-01"}, messages.LatestVersion, "1999-01-01"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conn, _ := serve(t, New(tc.opts))
			c := newClient(t, conn, nil)
			assert.Equal(t, tc.want, c.initialize(tc.requested).ProtocolVersion)
		})
	}
}

func TestBeforeInitialize(t *testing.T) {
	conn, _ := serve(t, New(Options{}))
	c := newClient(t, conn, nil)
	c.result(messages.MethodPing, nil, nil) // ping is always allowed
	werr := c.callErr(messages.MethodToolsList, nil)
	assert.Equal(t, int64(messages.CodeInvalidRequest), werr.Code)
	werr = c.callErr(messages.MethodInitialize, `{"capabilities":{}}`)
	assert.Equal(t, int64(messages.CodeInvalidParams), werr.Code)
}

func TestPingAndUnknownMethod(t *testing.T) {
	c, run := start(t, Options{})
	m := c.call(messages.MethodPing, nil)
	require.Nil(t, m.Error)
	assert.JSONEq(t, `{}`, string(m.Result))

	werr := c.callErr("no/such/method", nil)
	assert.Equal(t, int64(messages.CodeMethodNotFound), werr.Code)
	assert.Equal(t, int64(1), run.srv.Stats().Methods["no/such/method"])
}

func TestBatch(t *testing.T) {
	c, run := start(t, Options{})
	ch := make([]chan messages.Message, 4)
	for i := range ch {
		ch[i] = make(chan messages.Message, 1)
	}
	c.mu.Lock()
	for i, id := range []int64{101, 102, 103, 104} {
		c.pending[id] = ch[i]
	}
	c.mu.Unlock()
	batch := `[` +
		`{"jsonrpc":"2.0","id":101,"method":"ping"},` +
		`{"jsonrpc":"2.0","id":102,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}},` +
		`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},` +
		`{"jsonrpc":"2.0","id":103,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":1}}},` +
		`{"jsonrpc":"1.0","id":104,"method":"ping"}` +
		`]`
	require.NoError(t, c.write([]byte(batch)))
	for i := range ch {
		m := c.await(ch[i])
		if i == 3 {
			require.NotNil(t, m.Error)
			assert.Equal(t, int64(messages.CodeInvalidRequest), m.Error.Code)
		} else {
			require.Nil(t, m.Error, "%d", i)
		}
	}
	assert.Equal(t, int64(1), c.batchFrames.Load(), "the answers come back as one batch")
	s := run.srv.Stats()
	assert.Equal(t, int64(1), s.Batches)
	assert.Equal(t, int64(1), s.RootsListChanged)
	assert.Equal(t, int64(1), s.InvalidMessages)
}

func TestMalformedFrames(t *testing.T) {
	c, run := start(t, Options{})
	ch := make(chan messages.Message, 1)
	c.mu.Lock()
	c.pending[77] = ch
	c.mu.Unlock()
	require.NoError(t, c.write(
		[]byte(`this is not json`),
		[]byte(`{"jsonrpc":"2.0","id":{},"method":"ping"}`), // unusable id: ignored
		[]byte(`[]`),
		[]byte(`{"jsonrpc":"2.0","id":77,"method":42}`),
	))
	m := c.await(ch)
	require.NotNil(t, m.Error)
	assert.Equal(t, int64(messages.CodeInvalidRequest), m.Error.Code)
	c.result(messages.MethodPing, nil, nil) // still serving
	assert.Equal(t, int64(4), run.srv.Stats().InvalidMessages)
}

func TestUnexpectedResponse(t *testing.T) {
	c, run := start(t, Options{})
	require.NoError(t, c.write(messages.AppendResult(nil, messages.NumberID(999), nil)))
	awaitStats(t, run.srv, func(s Stats) bool { return s.UnexpectedResponses == 1 })
}

func TestConcurrentSessions(t *testing.T) {
	srv := New(Options{})
	conn1, _ := serve(t, srv)
	conn2, _ := serve(t, srv)
	c1 := newClient(t, conn1, nil)
	c2 := newClient(t, conn2, nil)
	c1.initialize(messages.Version20250618)
	c2.initialize(messages.Version20241105)
	assert.Equal(t, "a", text(t, c1.tool("echo", map[string]any{"text": "a"})))
	assert.Equal(t, "b", text(t, c2.tool("echo", map[string]any{"text": "b"})))
	s := srv.Stats()
	assert.Equal(t, int64(2), s.Sessions)
	assert.Equal(t, int64(2), s.ActiveSessions)
	assert.Equal(t, int64(2), s.ToolCalls["echo"])
}

func TestContextCancelStopsServe(t *testing.T) {
	c, run := start(t, Options{})
	_, ch := c.send(messages.MethodToolsCall, &messages.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 3_600_000}})
	awaitStats(t, run.srv, func(s Stats) bool { return s.ToolCalls["sleep"] == 1 })
	run.cancel()
	require.ErrorIs(t, run.wait(t), context.Canceled)
	select {
	case m := <-ch:
		t.Fatalf("unexpected response %+v", m)
	default:
	}
}
