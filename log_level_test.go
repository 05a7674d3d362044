package mcpengine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/internal/schemacheck"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport/stdio"
)

// TestSetLogLevelInTheStatelessEraRidesInEveryRequestsMeta: 2026-07-28 has
// no logging/setLevel; a client names the level in each request's _meta.
// SetLogLevel on such a session keeps the level (no request is sent) and
// every later request carries it; a level that is not one of the eight is
// refused at once (-32602). Before, SetLogLevel failed with "logging/setLevel
// does not exist in protocol version 2026-07-28".
func TestSetLogLevelInTheStatelessEraRidesInEveryRequestsMeta(t *testing.T) {
	rec := &recorder{}
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 30*time.Second)
	dialer := stdio.NewDialer(stdio.Config{Command: engineBin, Args: []string{"serve", "--era", "modern"}})
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "loglevel", Dialer: recordingDialer{dialer, rec}})
	require.NoError(t, err)
	require.Equal(t, messages.Version20260728, s.ProtocolVersion())

	_, err = s.CallTool(ctx, "echo", map[string]any{"text": "before"})
	require.NoError(t, err)
	require.NoError(t, s.SetLogLevel(ctx, messages.LoggingLevelWarning))
	_, err = s.CallTool(ctx, "echo", map[string]any{"text": "after"})
	require.NoError(t, err)
	_, err = s.ListTools(ctx)
	require.NoError(t, err)

	err = s.SetLogLevel(ctx, "loud")
	var we *messages.WireError
	require.ErrorAs(t, err, &we)
	assert.EqualValues(t, messages.CodeInvalidParams, we.Code)
	require.NoError(t, s.SetLogLevel(ctx, messages.LoggingLevelDebug))
	_, err = s.CallTool(ctx, "echo", map[string]any{"text": "debug"})
	require.NoError(t, err)

	rec.mu.Lock()
	defer rec.mu.Unlock()
	levels := map[string]string{} // echo text or method -> logLevel sent
	for _, frame := range rec.sent {
		f := string(frame)
		assert.NotContains(t, f, messages.MethodLoggingSetLevel, "the era has no such method")
		var req struct {
			Method string `json:"method"`
			Params struct {
				Arguments struct {
					Text string `json:"text"`
				} `json:"arguments"`
				Meta map[string]any `json:"_meta"`
			} `json:"params"`
		}
		if messages.Unmarshal(frame, &req) != nil || req.Method == "" {
			continue
		}
		key := req.Method
		if req.Params.Arguments.Text != "" {
			key = req.Params.Arguments.Text
		}
		level, _ := req.Params.Meta[messages.MetaLogLevel].(string)
		levels[key] = level
		if strings.Contains(f, messages.MetaLogLevel) {
			assert.Equal(t, 1, strings.Count(f, messages.MetaLogLevel), "%s", f)
			require.NoError(t, schemacheck.Validate(messages.Version20260728, frame), "%s", f)
		}
	}
	assert.Equal(t, map[string]string{
		messages.MethodServerDiscover: "",
		"before":                      "",
		"after":                       "warning",
		messages.MethodToolsList:      "warning",
		"debug":                       "debug",
	}, levels)
}
