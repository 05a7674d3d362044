package mcpengine_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// brokenAnswers maps a tool name to the broken answer the scripted server
// sends for a call of it (id is the request's id), and to what the caller
// must be told.
var brokenAnswers = map[string]struct {
	frame  func(id string) string
	reason string
}{
	"both": {func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{},"error":{"code":1,"message":"x"}}`
	}, "exactly one of result and error"},
	"neither":      {func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `}` }, "exactly one of result and error"},
	"version":      {func(id string) string { return `{"jsonrpc":"1.0","id":` + id + `,"result":{}}` }, `jsonrpc must be "2.0"`},
	"string-id":    {func(id string) string { return `{"jsonrpc":"2.0","id":"` + id + `","result":{}}` }, "came back as the string"},
	"error-code":   {func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":"E1","message":"x"}}` }, "error code must be an integer"},
	"in-a-batch":   {func(id string) string { return `[{"jsonrpc":"1.0","id":` + id + `,"result":{}}]` }, `jsonrpc must be "2.0"`},
	"string-batch": {func(id string) string { return `[{"jsonrpc":"2.0","id":"` + id + `","result":{}}]` }, "came back as the string"},
}

func brokenServer() *mcpengine.SessionConfig {
	return &mcpengine.SessionConfig{
		Name: "broken",
		Dialer: scriptedServer(messages.Version20251125, func(req messages.Message) [][]byte {
			var p struct {
				Name string `json:"name"`
			}
			_ = messages.Unmarshal(req.Params, &p)
			if b, ok := brokenAnswers[p.Name]; ok {
				return [][]byte{[]byte(b.frame(req.ID.String()))}
			}
			if p.Name == "bad-utf8" {
				return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + req.ID.String() + ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\xffb\"}]}}")}
			}
			return [][]byte{messages.AppendResult(nil, req.ID, messages.RawMessage(`{}`))}
		}),
	}
}

// A broken answer with a recognisable id fails its call at once with a
// *ProtocolError saying what was wrong (the request timeout is far away),
// and is still counted as an invalid frame; the session goes on.
func TestABrokenAnswerFailsItsCallAtOnceWithAProtocolError(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	s, err := e.Connect(testCtx(t, 10*time.Second), *brokenServer())
	require.NoError(t, err)
	ctx := testCtx(t, 60*time.Second)

	var wg sync.WaitGroup
	for name, b := range brokenAnswers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.CallTool(ctx, name, nil, mcpengine.WithTimeout(20*time.Second))
			assert.ErrorIs(t, err, mcpengine.ErrProtocol, name)
			var pe *mcpengine.ProtocolError
			if assert.ErrorAs(t, err, &pe, name) {
				assert.Contains(t, pe.Reason, b.reason, name)
				assert.Equal(t, messages.MethodToolsCall, pe.Method)
			}
			assert.False(t, mcpengine.SafeToRetry(err), "the server may have run it")
		}()
	}
	wg.Wait()
	assert.Equal(t, uint64(len(brokenAnswers)), s.Stats().InvalidFrames)
	assert.Zero(t, s.Stats().LateResponses)
	assert.Zero(t, s.Stats().Timeouts)
	require.NoError(t, s.Ping(ctx))
	assert.Equal(t, mcpengine.StateReady, s.State())
}

// Invalid UTF-8 inside a string is accepted with U+FFFD in its place (the
// JSON is otherwise valid, and its caller waits for it), and counted.
func TestInvalidUTF8InAnAnswerIsReplacedAndCounted(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	s, err := e.Connect(testCtx(t, 10*time.Second), *brokenServer())
	require.NoError(t, err)
	res, err := s.CallTool(testCtx(t, 30*time.Second), "bad-utf8", nil)
	require.NoError(t, err)
	assert.Equal(t, "a\uFFFDb", res.Content[0].Text)
	assert.Equal(t, uint64(1), s.Stats().InvalidUTF8Frames)
	assert.Zero(t, s.Stats().InvalidFrames)
}
