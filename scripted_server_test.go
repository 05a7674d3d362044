package mcpengine_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

// scriptedServer answers initialize for version, then hands every other
// request to answer, which returns the raw frames to write back.
func scriptedServer(version string, answer func(req messages.Message) [][]byte) transport.Dialer {
	return memory.NewDialer("scripted", func(conn transport.Conn) {
		defer conn.Close(context.Background())
		for {
			frame, err := conn.ReadFrame()
			if err != nil {
				return
			}
			msgs, _ := messages.DecodeFrame(frame)
			for _, m := range msgs {
				if m.Kind != messages.KindRequest {
					continue
				}
				if m.Method == messages.MethodServerDiscover {
					// A server of the handshake era does not know the
					// stateless era's probe.
					_ = conn.WriteFrames(messages.AppendError(nil, m.ID, &messages.WireError{Code: messages.CodeMethodNotFound, Message: "method not found"}))
					continue
				}
				if m.Method == messages.MethodInitialize {
					res := fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"1"}}`, version)
					_ = conn.WriteFrames(messages.AppendResult(nil, m.ID, messages.RawMessage(res)))
					continue
				}
				if err := conn.WriteFrames(answer(m)...); err != nil {
					return
				}
			}
		}
	})
}

func TestBatchFromA20250326ServerIsRoutedMemberByMember(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	s, err := e.Connect(testCtx(t, 5*time.Second), mcpengine.SessionConfig{
		Name: "batch",
		Dialer: scriptedServer(messages.Version20250326, func(req messages.Message) [][]byte {
			batch := `[{"jsonrpc":"2.0","method":"notifications/tools/list_changed"},` +
				`{"jsonrpc":"2.0","id":"srv-1","method":"ping"},` +
				`{"jsonrpc":"2.0","id":` + req.ID.String() + `,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}]`
			return [][]byte{[]byte(batch)}
		}),
	})
	require.NoError(t, err)
	assert.Equal(t, messages.Version20250326, s.ProtocolVersion())
	got := make(chan string, 4)
	stop := s.OnNotification(func(n mcpengine.Notification) { got <- n.Method })
	defer stop()
	tools, err := s.ListToolsPage(testCtx(t, 5*time.Second), "")
	require.NoError(t, err)
	require.Len(t, tools.Tools, 1)
	assert.Equal(t, messages.NotificationToolsListChanged, <-got)
}

func TestProtocolInvalidFramesAreCountedAndDiscardedAndTheSessionGoesOn(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	s, err := e.Connect(testCtx(t, 5*time.Second), mcpengine.SessionConfig{
		Name: "invalid",
		Dialer: scriptedServer(messages.Version20251125, func(req messages.Message) [][]byte {
			// Broken answers to no pending request (a broken answer to a
			// pending one fails it: protocol_error_test.go).
			other := "9" + req.ID.String()
			id := req.ID.String()
			return [][]byte{
				[]byte(`{"jsonrpc":"1.0","id":` + other + `,"result":{}}`),                                          // wrong version
				[]byte(`{"jsonrpc":"2.0","id":` + other + `,"result":{},"error":{"code":1,"message":"x"}}`),         // both
				[]byte(`{"jsonrpc":"2.0","id":` + other + `,"error":{"code":"E1","message":"x"}}`),                  // string code
				[]byte(`{"jsonrpc":"2.0","id":` + other + `,"error":{"code":1}}`),                                   // no message
				[]byte(`{"jsonrpc":"2.0","id":{"n":1},"result":{}}`),                                                // object id
				[]byte("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"\x01\"}}"), // raw control char
				[]byte(`not json at all`),
				[]byte(`{"jsonrpc":"2.0","id":"srv-` + id + `","result":{}}`), // a string id that is no number: not ours
				[]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`),       // finally the answer
			}
		}),
	})
	require.NoError(t, err)
	require.NoError(t, s.Ping(testCtx(t, 5*time.Second)))
	assert.Equal(t, uint64(7), s.Stats().InvalidFrames)
	assert.Equal(t, uint64(1), s.Stats().LateResponses, "a string id never matches a numeric request id")
	assert.Equal(t, mcpengine.StateReady, s.State())
	assert.Equal(t, uint64(0), s.Stats().Restarts)
}

func TestUndeclaredCapabilitiesFailFastWithATypedErrorBeforeAnythingIsSent(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	var sent []string
	var mu sync.Mutex
	s, err := e.Connect(testCtx(t, 5*time.Second), mcpengine.SessionConfig{
		Name: "tools-only", // the scripted server declares {"tools":{}} only
		Dialer: scriptedServer(messages.Version20251125, func(req messages.Message) [][]byte {
			mu.Lock()
			sent = append(sent, req.Method)
			mu.Unlock()
			return [][]byte{messages.AppendResult(nil, req.ID, messages.RawMessage(`{"tools":[]}`))}
		}),
	})
	require.NoError(t, err)
	ctx := testCtx(t, 5*time.Second)
	_, err = s.ListTools(ctx)
	require.NoError(t, err)

	checks := []struct {
		name string
		call func() error
		cap  string
	}{
		{"prompts/list", func() error { _, err := s.ListPrompts(ctx); return err }, "prompts"},
		{"resources/read", func() error { _, err := s.ReadResource(ctx, "x://y"); return err }, "resources"},
		{"resources/subscribe", func() error { return s.Subscribe(ctx, "x://y") }, "resources.subscribe"},
		{"logging/setLevel", func() error { return s.SetLogLevel(ctx, "info") }, "logging"},
		{"completion/complete", func() error {
			_, err := s.Complete(ctx, &messages.CompleteParams{Ref: messages.CompleteReference{Type: messages.RefPrompt, Name: "p"}})
			return err
		}, "completions"},
	}
	for _, c := range checks {
		err := c.call()
		require.ErrorIs(t, err, mcpengine.ErrCapabilityNotSupported, c.name)
		var ce *mcpengine.CapabilityError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, c.cap, ce.Capability)
		assert.True(t, mcpengine.SafeToRetry(err), "never sent")
	}
	require.NoError(t, s.Ping(ctx), "ping needs no capability")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{messages.MethodToolsList, messages.MethodPing}, sent, "refused requests never reached the server")
}
