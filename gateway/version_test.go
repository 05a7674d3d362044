package gateway_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/gateway"
)

// The gateway's serverInfo gives the version its program says it is
// (engine gateway: its build version), not "dev".
func TestGatewayServerInfoGivesTheConfiguredVersion(t *testing.T) {
	_, gw := startGateway(t, gateway.Config{Version: "v1.2.3-test", Servers: map[string]gateway.Server{
		"demo": {Target: engineServe()},
	}})
	s := connect(t, clientEngine(t, mcpengine.Config{}), "gw", gw, "")
	assert.Equal(t, "v1.2.3-test", s.ServerInfo().Version)
}
