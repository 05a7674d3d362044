package mcpengine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// Config.MaxFrameBytes above the 32 MiB default reaches the decoder: a
// 40 MiB answer the transport let through is delivered to its caller, not
// dropped as invalid while the caller waits for its timeout.
func TestAnAnswerAboveTheDefaultFrameLimitArrivesWhenTheConfiguredLimitAllowsIt(t *testing.T) {
	const size = 40 << 20
	text := strings.Repeat("x", size)
	e := newEngine(t, mcpengine.Config{MaxFrameBytes: 48 << 20})
	s, err := e.Connect(testCtx(t, 10*time.Second), mcpengine.SessionConfig{
		Name: "large",
		Dialer: scriptedServer(messages.Version20251125, func(req messages.Message) [][]byte {
			return [][]byte{messages.AppendResult(nil, req.ID, messages.RawMessage(`{"content":[{"type":"text","text":"`+text+`"}]}`))}
		}),
	})
	require.NoError(t, err)
	raw, err := s.Call(testCtx(t, 60*time.Second), messages.MethodToolsCall, map[string]any{"name": "large"}, mcpengine.WithTimeout(20*time.Second))
	require.NoError(t, err)
	assert.Greater(t, len(raw), size)
	assert.Zero(t, s.Stats().InvalidFrames)
}
