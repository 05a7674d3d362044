package mcpengine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
)

// A RootsHandler answers roots/list at the time the server asks (a relay
// asks its own client), and advertises the capability.
func TestRootsHandlerAnswersRootsList(t *testing.T) {
	asked := 0
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 10*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{
		Name:   "roots",
		Dialer: memoryDemo(t, demoserver.New(demoserver.Options{})),
		RootsHandler: func(context.Context) ([]messages.Root, error) {
			asked++
			return []messages.Root{{URI: "file:///asked/" + string(rune('0'+asked))}}, nil
		},
	})
	require.NoError(t, err)
	res, err := s.CallTool(ctx, "roots", nil)
	require.NoError(t, err)
	assert.Contains(t, res.Content[0].Text, "file:///asked/1")
	res, err = s.CallTool(ctx, "roots", nil)
	require.NoError(t, err)
	assert.Contains(t, res.Content[0].Text, "file:///asked/2", "asked again each time")
}
