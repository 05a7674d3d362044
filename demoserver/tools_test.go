package demoserver

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

func TestToolsListPagination(t *testing.T) {
	c, _ := start(t, Options{PageSize: 5})
	seen := map[string]int{}
	cursor, pages := "", 0
	for {
		var res messages.ListToolsResult
		c.result(messages.MethodToolsList, &messages.PaginatedParams{Cursor: cursor}, &res)
		pages++
		assert.LessOrEqual(t, len(res.Tools), 5)
		for _, tl := range res.Tools {
			seen[tl.Name]++
			assert.NotEmpty(t, tl.InputSchema, tl.Name)
			require.NotNil(t, tl.Annotations, tl.Name)
			assert.NotNil(t, tl.Annotations.ReadOnlyHint)
			assert.NotNil(t, tl.Annotations.DestructiveHint)
			assert.NotNil(t, tl.Annotations.IdempotentHint)
			assert.NotNil(t, tl.Annotations.OpenWorldHint)
			if tl.Name == "echo" || tl.Name == "add" {
				assert.NotEmpty(t, tl.OutputSchema, tl.Name)
			}
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	assert.Equal(t, 3, pages)
	want := []string{"echo", "add", "sleep", "progress", "fail", "large", "sample", "elicit", "roots", "log", "notify", "touch", "meta"}
	assert.Len(t, seen, len(want))
	for _, n := range want {
		assert.Equal(t, 1, seen[n], n)
	}

	werr := c.callErr(messages.MethodToolsList, &messages.PaginatedParams{Cursor: "bogus"})
	assert.Equal(t, int64(messages.CodeInvalidParams), werr.Code)
	werr = c.callErr(messages.MethodToolsList, &messages.PaginatedParams{Cursor: encodeCursor("prompts", 5)})
	assert.Equal(t, int64(messages.CodeInvalidParams), werr.Code)
}

func TestEchoAndAdd(t *testing.T) {
	c, run := start(t, Options{})
	for _, s := range []string{"hello", "", "quote\" back\\slash \n newline \u00e9 \U0001F600 \x01"} {
		res := c.tool("echo", map[string]any{"text": s})
		assert.False(t, res.IsError)
		assert.Equal(t, s, text(t, res))
		var sc struct {
			Text string `json:"text"`
		}
		require.NoError(t, messages.Unmarshal(res.StructuredContent, &sc))
		assert.Equal(t, s, sc.Text)
	}
	assert.True(t, c.tool("echo", map[string]any{}).IsError)
	assert.True(t, c.tool("echo", map[string]any{"text": 5}).IsError)

	res := c.tool("add", map[string]any{"a": 1.5, "b": 2})
	assert.Equal(t, "3.5", text(t, res))
	assert.JSONEq(t, `{"sum":3.5}`, string(res.StructuredContent))
	assert.True(t, c.tool("add", map[string]any{"a": 1}).IsError)

	werr := c.callErr(messages.MethodToolsCall, &messages.CallToolParams{Name: "nope"})
	assert.Equal(t, int64(messages.CodeInvalidParams), werr.Code)
	assert.Equal(t, int64(5), run.srv.Stats().ToolCalls["echo"])
}

func TestFail(t *testing.T) {
	c, _ := start(t, Options{})
	res := c.tool("fail", map[string]any{"message": "boom"})
	assert.True(t, res.IsError)
	assert.Equal(t, "boom", text(t, res))
}

func TestSleepRunsConcurrentlyAndCancels(t *testing.T) {
	c, run := start(t, Options{})
	id, sleepCh := c.send(messages.MethodToolsCall, &messages.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 3_600_000}})
	// A quick request is answered while sleep is running.
	assert.Equal(t, "x", text(t, c.tool("echo", map[string]any{"text": "x"})))

	c.notify(messages.NotificationCancelled, &messages.CancelledParams{RequestID: messages.NumberID(id), Reason: "test"})
	awaitStats(t, run.srv, func(s Stats) bool { return s.CancelledCalls == 1 })
	assert.Equal(t, int64(1), run.srv.Stats().Cancellations)
	c.result(messages.MethodPing, nil, nil)
	select {
	case m := <-sleepCh:
		t.Fatalf("cancelled request answered: %+v", m)
	default:
	}

	// A short sleep completes.
	assert.Equal(t, "slept 1ms", text(t, c.tool("sleep", map[string]any{"ms": 1})))
	// Cancelling an unknown or finished request is counted but harmless.
	c.notify(messages.NotificationCancelled, &messages.CancelledParams{RequestID: messages.NumberID(id)})
	awaitStats(t, run.srv, func(s Stats) bool { return s.Cancellations == 2 })
	assert.Equal(t, int64(1), run.srv.Stats().CancelledCalls)
}

func TestProgress(t *testing.T) {
	c, _ := start(t, Options{})
	var res messages.CallToolResult
	c.result(messages.MethodToolsCall, &messages.CallToolParams{
		Name:      "progress",
		Arguments: map[string]any{"steps": 3, "intervalMs": 1},
		Meta:      messages.WithProgressToken(nil, messages.StringID("tok")),
	}, &res)
	assert.Equal(t, "completed 3 steps", text(t, res))
	for i := 1; i <= 3; i++ {
		m := c.nextNotification()
		require.Equal(t, messages.NotificationProgress, m.Method)
		var p messages.ProgressParams
		require.NoError(t, messages.Unmarshal(m.Params, &p))
		assert.Equal(t, messages.StringID("tok"), p.ProgressToken)
		assert.Equal(t, float64(i), p.Progress)
		require.NotNil(t, p.Total)
		assert.Equal(t, 3.0, *p.Total)
	}
	// Without a token: no notifications.
	assert.Equal(t, "completed 2 steps", text(t, c.tool("progress", map[string]any{"steps": 2})))
	c.noNotification()
}

func TestLarge(t *testing.T) {
	c, _ := start(t, Options{})
	s := text(t, c.tool("large", map[string]any{"bytes": 1000}))
	require.Len(t, s, 1000)
	for i := range s {
		if s[i] != largePattern[i%len(largePattern)] {
			t.Fatalf("byte %d = %q", i, s[i])
		}
	}
	assert.Empty(t, text(t, c.tool("large", map[string]any{"bytes": 0})))
	assert.True(t, c.tool("large", map[string]any{"bytes": -1}).IsError)
}

// TestLarge100MB reads the 100 MB response frame raw: it is beyond the
// envelope decoder's cap, as it is beyond a default client's.
func TestLarge100MB(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	conn, _ := serve(t, New(Options{}))
	r := &rawConn{t: t, conn: conn}
	r.initialize()
	const n = 100 << 20
	id := r.send(messages.MethodToolsCall, &messages.CallToolParams{Name: "large", Arguments: map[string]any{"bytes": n}})
	frame := r.readFrame()
	prefix := `{"jsonrpc":"2.0","id":` + messages.NumberID(id).String() + `,"result":{"content":[{"type":"text","text":"`
	suffix := `"}]}}`
	require.Len(t, frame, len(prefix)+n+len(suffix))
	require.Equal(t, prefix, string(frame[:len(prefix)]))
	require.Equal(t, suffix, string(frame[len(frame)-len(suffix):]))
	body := frame[len(prefix) : len(prefix)+n]
	for _, i := range []int{0, 1, 25, 26, n / 2, n - 1} {
		require.Equal(t, largePattern[i%len(largePattern)], body[i], "byte %d", i)
	}
}

func TestSampleElicitRoots(t *testing.T) {
	srv := New(Options{})
	conn, run := serve(t, srv)
	var gotSampling messages.CreateMessageParams
	var gotElicit messages.ElicitParams
	c := newClient(t, conn, func(m messages.Message) (any, *messages.WireError) {
		switch m.Method {
		case messages.MethodSamplingCreateMessage:
			assert.NoError(t, messages.Unmarshal(m.Params, &gotSampling))
			blocks, err := gotSampling.Messages[0].Blocks()
			if !assert.NoError(t, err) || !assert.NotEmpty(t, blocks) {
				return nil, &messages.WireError{Code: -1, Message: "bad params"}
			}
			if blocks[0].Text == "refuse" {
				return nil, &messages.WireError{Code: -1, Message: "user rejected sampling"}
			}
			res := messages.CreateMessageResult{Role: messages.RoleAssistant, Model: "fake"}
			assert.NoError(t, res.SetContent(messages.TextContent("answer to "+blocks[0].Text)))
			return &res, nil
		case messages.MethodElicitationCreate:
			assert.NoError(t, messages.Unmarshal(m.Params, &gotElicit))
			return &messages.ElicitResult{Action: messages.ElicitActionAccept, Content: map[string]any{"name": "Ann", "confirm": true}}, nil
		case messages.MethodRootsList:
			return &messages.ListRootsResult{Roots: []messages.Root{{URI: "file:///a"}, {URI: "file:///b", Name: "b"}}}, nil
		}
		return nil, &messages.WireError{Code: messages.CodeMethodNotFound, Message: "no"}
	})
	c.initialize(messages.LatestVersion)

	res := c.tool("sample", map[string]any{"prompt": "question"})
	assert.False(t, res.IsError)
	assert.Equal(t, "answer to question", text(t, res))
	assert.Equal(t, 100, gotSampling.MaxTokens)

	res = c.tool("sample", map[string]any{"prompt": "refuse"})
	assert.True(t, res.IsError)
	assert.Contains(t, text(t, res), "user rejected sampling")

	res = c.tool("elicit", map[string]any{"message": "who are you?"})
	assert.False(t, res.IsError)
	assert.Equal(t, "who are you?", gotElicit.Message)
	assert.Equal(t, messages.ElicitModeForm, gotElicit.Mode)
	assert.Contains(t, string(gotElicit.RequestedSchema), `"boolean"`)
	assert.JSONEq(t, `{"action":"accept","content":{"name":"Ann","confirm":true}}`, string(res.StructuredContent))
	assert.True(t, strings.HasPrefix(text(t, res), "action=accept content="))

	res = c.tool("roots", nil)
	assert.Equal(t, "file:///a\nfile:///b", text(t, res))
	assert.JSONEq(t, `{"roots":["file:///a","file:///b"]}`, string(res.StructuredContent))

	assert.Equal(t, int64(4), run.srv.Stats().ServerRequests)
}

func TestServerRequestCancelledWithToolCall(t *testing.T) {
	srv := New(Options{})
	conn, run := serve(t, srv)
	asked := make(chan messages.ID, 1)
	c := newClient(t, conn, func(m messages.Message) (any, *messages.WireError) {
		asked <- m.ID
		return nil, noAnswer
	})
	c.initialize(messages.LatestVersion)
	id, ch := c.send(messages.MethodToolsCall, &messages.CallToolParams{Name: "roots"})
	var serverReq messages.ID
	select {
	case serverReq = <-asked:
	case <-time.After(testTimeout):
		t.Fatal("the server did not send roots/list")
	}
	c.notify(messages.NotificationCancelled, &messages.CancelledParams{RequestID: messages.NumberID(id)})
	awaitStats(t, run.srv, func(s Stats) bool { return s.CancelledCalls == 1 })

	// The server withdraws its own request.
	m := c.nextNotification()
	require.Equal(t, messages.NotificationCancelled, m.Method)
	var p messages.CancelledParams
	require.NoError(t, messages.Unmarshal(m.Params, &p))
	assert.Equal(t, serverReq, p.RequestID)

	// A late answer to it is counted as unexpected; the tool call stays
	// unanswered.
	require.NoError(t, c.write(messages.AppendResult(nil, serverReq, []byte(`{"roots":[]}`))))
	awaitStats(t, run.srv, func(s Stats) bool { return s.UnexpectedResponses == 1 })
	c.result(messages.MethodPing, nil, nil)
	select {
	case m := <-ch:
		t.Fatalf("cancelled call answered: %+v", m)
	default:
	}
}

func TestClientRequestTimeout(t *testing.T) {
	conn, _ := serve(t, New(Options{ClientRequestTimeout: 1}))
	c := newClient(t, conn, func(messages.Message) (any, *messages.WireError) { return nil, noAnswer })
	c.initialize(messages.LatestVersion)
	res := c.tool("roots", nil)
	assert.True(t, res.IsError)
	assert.Contains(t, text(t, res), "did not answer in time")
	m := c.nextNotification()
	assert.Equal(t, messages.NotificationCancelled, m.Method)
}

func TestLogLevels(t *testing.T) {
	c, _ := start(t, Options{})
	// Default level is info.
	assert.Equal(t, "filtered", text(t, c.tool("log", map[string]any{"level": "debug", "message": "d"})))
	c.noNotification()
	assert.Equal(t, "sent", text(t, c.tool("log", map[string]any{"level": "info", "message": "i"})))
	m := c.nextNotification()
	require.Equal(t, messages.NotificationMessage, m.Method)
	var p messages.LoggingMessageParams
	require.NoError(t, messages.Unmarshal(m.Params, &p))
	assert.Equal(t, messages.LoggingLevelInfo, p.Level)
	assert.Equal(t, "demoserver", p.Logger)
	assert.JSONEq(t, `"i"`, string(p.Data))

	c.result(messages.MethodLoggingSetLevel, &messages.SetLevelParams{Level: messages.LoggingLevelError}, nil)
	assert.Equal(t, "filtered", text(t, c.tool("log", map[string]any{"level": "warning", "message": "w"})))
	assert.Equal(t, "sent", text(t, c.tool("log", map[string]any{"level": "critical", "message": "c"})))
	assert.Equal(t, messages.NotificationMessage, c.nextNotification().Method)
	c.noNotification()

	werr := c.callErr(messages.MethodLoggingSetLevel, &messages.SetLevelParams{Level: "loud"})
	assert.Equal(t, int64(messages.CodeInvalidParams), werr.Code)
	assert.True(t, c.tool("log", map[string]any{"level": "loud", "message": "x"}).IsError)
}

func TestNotify(t *testing.T) {
	c, _ := start(t, Options{})
	for kind, method := range map[string]string{
		"tools":     messages.NotificationToolsListChanged,
		"resources": messages.NotificationResourcesListChanged,
		"prompts":   messages.NotificationPromptsListChanged,
	} {
		assert.False(t, c.tool("notify", map[string]any{"kind": kind}).IsError)
		assert.Equal(t, method, c.nextNotification().Method)
	}
	assert.True(t, c.tool("notify", map[string]any{"kind": "other"}).IsError)
}

func TestSubscribeAndTouch(t *testing.T) {
	c, _ := start(t, Options{})
	const uri = "demo://resource/3"
	assert.Equal(t, "not subscribed", text(t, c.tool("touch", map[string]any{"uri": uri})))
	c.noNotification()

	c.result(messages.MethodResourcesSubscribe, &messages.SubscribeParams{URI: uri}, nil)
	assert.Equal(t, "notified", text(t, c.tool("touch", map[string]any{"uri": uri})))
	m := c.nextNotification()
	require.Equal(t, messages.NotificationResourcesUpdated, m.Method)
	var p messages.ResourceUpdatedParams
	require.NoError(t, messages.Unmarshal(m.Params, &p))
	assert.Equal(t, uri, p.URI)

	c.result(messages.MethodResourcesUnsubscribe, &messages.UnsubscribeParams{URI: uri}, nil)
	assert.Equal(t, "not subscribed", text(t, c.tool("touch", map[string]any{"uri": uri})))
	c.noNotification()

	werr := c.callErr(messages.MethodResourcesSubscribe, &messages.SubscribeParams{URI: "demo://nothing"})
	assert.Equal(t, int64(messages.CodeResourceNotFound), werr.Code)
}
