package gateway_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/gateway"
	"github.com/mcpengine/mcpengine/internal/oauthtest"
)

// TestOAuthUpstreamWithClientCredentials: an upstream server that
// requires OAuth, configured in the gateway's file with the client
// credentials grant, is reached by the gateway's clients without any
// login: the gateway's engine obtains the token (one token request for
// the upstream's pool) and a call through the aggregated endpoint reaches
// the upstream's tool.
func TestOAuthUpstreamWithClientCredentials(t *testing.T) {
	const clientSecret = "gw-client-" + oauthtest.SecretMarker
	k := oauthtest.New(t, oauthtest.Config{PRMInHeader: true, NoRegistration: true,
		AuthMethods: []string{oauthtest.AuthSecretBasic},
		PreClients:  map[string]string{"gateway-client": clientSecret},
		Resource:    demoserver.New(demoserver.Options{Name: "protected"}).StreamableHandler(demoserver.HTTPOptions{})})
	cfg, err := gateway.ParseConfig(fmt.Appendf(nil, `{
	  "mcpServers": {
	    "secure": {"url": %q, "auth": {"oauth": {"grant": "client_credentials", "clientId": "gateway-client", "clientSecret": %q}}}
	  },
	  "gateway": {"servers": {"secure": {"pool": 2}}}
	}`, k.ServerURL(), clientSecret))
	require.NoError(t, err)
	_, gw := startGateway(t, *cfg)

	s := connect(t, clientEngine(t, mcpengine.Config{}), "through-gateway", gw, "")
	ctx := testCtx(t, 30*time.Second)
	res, err := s.CallTool(ctx, "secure__echo", map[string]any{"text": "behind oauth"})
	require.NoError(t, err)
	assert.Equal(t, "behind oauth", toolText(t, res))

	assert.Equal(t, 1, k.TokenRequests(oauthtest.GrantClientCredentials), "one token for the upstream's pool of 2")
	assert.Equal(t, 0, k.TokenRequests(oauthtest.GrantAuthorizationCode))
	_, tokenReqs, _ := k.Snapshot()
	require.Len(t, tokenReqs, 1)
	assert.Equal(t, oauthtest.AuthSecretBasic, tokenReqs[0].AuthMethod)
	assert.Equal(t, "gateway-client", tokenReqs[0].ClientID)
	assert.Equal(t, k.ServerURL(), tokenReqs[0].Form.Get("resource"))
	assert.Positive(t, k.Served(), "the upstream served authorized requests")
}
