package gateway_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/gateway"
	"github.com/mcpengine/mcpengine/messages"
)

// TestUpstreamsOfEitherEraBehindOneEndpoint: each upstream session
// negotiates its own era (here one stdio server of the stateless era and
// one of the handshake era), and a client of the aggregated endpoint
// (which speaks the handshake era) lists and calls both.
func TestUpstreamsOfEitherEraBehindOneEndpoint(t *testing.T) {
	g, gw := startGateway(t, gateway.Config{
		Servers: map[string]gateway.Server{
			"modern": {Target: engineServe("--era", "modern")},
			"legacy": {Target: engineServe()},
		},
	})
	s := connect(t, clientEngine(t, mcpengine.Config{}), "agg", gw, "")
	ctx := testCtx(t, 30*time.Second)
	tools, err := s.ListTools(ctx)
	require.NoError(t, err)
	names := map[string]bool{}
	for _, tool := range tools {
		names[tool.Name] = true
	}
	assert.True(t, names["modern__echo"], "%v", names)
	assert.True(t, names["legacy__echo"], "%v", names)
	for _, server := range []string{"modern", "legacy"} {
		res, err := s.CallTool(ctx, server+"__echo", map[string]any{"text": server})
		require.NoError(t, err, server)
		assert.Equal(t, server, res.Content[0].Text)
	}
	versions := map[string]string{}
	for name, h := range g.Health().Servers {
		require.NotEmpty(t, h.Sessions, name)
		versions[name] = h.Sessions[0].ProtocolVersion
	}
	assert.Equal(t, map[string]string{"modern": messages.Version20260728, "legacy": messages.Version20251125}, versions)
}
