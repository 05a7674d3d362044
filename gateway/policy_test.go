package gateway_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/gateway"
	"github.com/mcpengine/mcpengine/messages"
)

// Tokens of the test clients (at least 16 characters).
const (
	aliceToken = "alice-token-0123456789"
	bobToken   = "bob-token-0123456789ab"
	carolToken = "carol-token-0123456789"
	daveToken  = "dave-token-01234567890"
)

// policyGateway: server "a" denies its fail tool and allows only
// resources whose URI starts demo://resource/1; server "b" cuts tool calls
// off after 300ms. alice may not sleep anywhere and may use only the greet
// prompt of "a"; bob may not use "a" at all; carol reads at most 10 bytes;
// dave has two requests.
func policyGateway(t *testing.T) (*demoserver.Server, *gateway.HTTPServer) {
	bsrv, _, gw := twoServers(t, func(c *gateway.Config) {
		a := c.Servers["a"]
		a.Policy = gateway.Policy{Tools: gateway.Rules{Deny: []string{"fail"}}, Resources: gateway.Rules{Allow: []string{"demo://resource/1*"}}}
		c.Servers["a"] = a
		b := c.Servers["b"]
		b.Policy = gateway.Policy{MaxToolTime: 300 * time.Millisecond}
		c.Servers["b"] = b
		c.Clients = []gateway.Client{
			{Name: "alice", Token: aliceToken, Policy: gateway.Policy{Tools: gateway.Rules{Deny: []string{"sleep"}}},
				Servers: map[string]gateway.Policy{"a": {Prompts: gateway.Rules{Allow: []string{"greet"}}}}},
			{Name: "bob", Token: bobToken, Policy: gateway.Policy{Servers: gateway.Rules{Deny: []string{"a"}}}},
			{Name: "carol", Token: carolToken, Policy: gateway.Policy{MaxResourceBytes: 10}},
			{Name: "dave", Token: daveToken, Policy: gateway.Policy{RateLimit: &gateway.RateLimit{PerSecond: 0.001, Burst: 2}}},
		}
	})
	return bsrv, gw
}

// denial is the error of a refused request with its data decoded.
func denial(t *testing.T, err error) (code int64, msg string, data map[string]string) {
	t.Helper()
	var werr *mcpengine.RPCError
	require.ErrorAs(t, err, &werr)
	if len(werr.Data) > 0 {
		require.NoError(t, json.Unmarshal(werr.Data, &data))
	}
	return werr.Code, werr.Message, data
}

func TestPolicyHidesAndDeniesWithTheRuleNamed(t *testing.T) {
	_, gw := policyGateway(t)
	e := clientEngine(t, mcpengine.Config{})
	alice := connect(t, e, "alice", gw, aliceToken)
	ctx := testCtx(t, 30*time.Second)

	tools, err := alice.ListTools(ctx)
	require.NoError(t, err)
	tn := names(tools, func(x messages.Tool) string { return x.Name })
	assert.NotContains(t, tn, "a__fail", "server a's policy")
	assert.Contains(t, tn, "b__fail", "server a's policy does not apply to b")
	assert.NotContains(t, tn, "a__sleep", "alice's policy")
	assert.NotContains(t, tn, "b__sleep", "alice's policy applies to every server")
	assert.Contains(t, tn, "a__echo")

	_, err = alice.CallTool(ctx, "a__fail", map[string]any{})
	code, msg, data := denial(t, err)
	assert.Equal(t, int64(gateway.CodeDenied), code)
	assert.Equal(t, `denied by server "a" policy: tool "fail" (rule tools.deny "fail")`, msg)
	assert.Equal(t, map[string]string{"server": "a", "policy": `server "a"`, "rule": `tools.deny "fail"`, "what": `tool "fail"`}, data)

	_, err = alice.CallTool(ctx, "b__sleep", map[string]any{"ms": 1})
	_, msg, _ = denial(t, err)
	assert.Equal(t, `denied by client "alice" policy: tool "sleep" (rule tools.deny "sleep")`, msg)

	prompts, err := alice.ListPrompts(ctx)
	require.NoError(t, err)
	pn := names(prompts, func(p messages.Prompt) string { return p.Name })
	assert.Contains(t, pn, "a__greet")
	assert.NotContains(t, pn, "a__summarize")
	assert.Contains(t, pn, "b__summarize")
	_, err = alice.GetPrompt(ctx, "a__summarize", map[string]string{"text": "x"})
	_, msg, _ = denial(t, err)
	assert.Equal(t, `denied by client "alice" for server "a" policy: prompt "summarize" (rule prompts.allow (no pattern matches))`, msg)

	resources, err := alice.ListResources(ctx)
	require.NoError(t, err)
	assert.Len(t, resources, 12, "demo://resource/1, /10../19 and /100")
	_, err = alice.ReadResource(ctx, "demo://resource/2")
	_, msg, _ = denial(t, err)
	assert.Equal(t, `denied by server "a" policy: resource "demo://resource/2" (rule resources.allow (no pattern matches))`, msg)
	_, err = alice.ReadResource(ctx, "demo://resource/12")
	assert.NoError(t, err)
	err = alice.Subscribe(ctx, "demo://resource/3")
	_, msg, _ = denial(t, err)
	assert.Contains(t, msg, `resources.allow`)

	// The routing protocol applies the same policies to the server's own
	// names, and filters lists.
	_, body, _ := post(t, gw.RouteURL(), aliceToken, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fail","arguments":{}},"server_id":"a"}`)
	assert.Equal(t, int64(gateway.CodeDenied), decodeError(t, body).Code)
	_, body, _ = post(t, gw.RouteURL(), aliceToken, `{"jsonrpc":"2.0","id":1,"method":"tools/list","server_id":"a"}`)
	list := string(member(t, body, "result"))
	assert.Contains(t, list, `"name":"echo"`)
	assert.NotContains(t, list, `"name":"fail"`)
	assert.NotContains(t, list, `"name":"sleep"`)
}

func TestPolicyKeepsAClientOffAServer(t *testing.T) {
	_, gw := policyGateway(t)
	bob := connect(t, clientEngine(t, mcpengine.Config{}), "bob", gw, bobToken)
	ctx := testCtx(t, 30*time.Second)

	tools, err := bob.ListTools(ctx)
	require.NoError(t, err)
	for _, n := range names(tools, func(x messages.Tool) string { return x.Name }) {
		assert.True(t, strings.HasPrefix(n, "b__"), n)
	}
	_, err = bob.CallTool(ctx, "a__echo", map[string]any{"text": "x"})
	_, msg, _ := denial(t, err)
	assert.Equal(t, `denied by client "bob" policy: server "a" (rule servers.deny "a")`, msg)
	_, body, _ := post(t, gw.RouteURL(), bobToken, `{"jsonrpc":"2.0","id":1,"method":"ping","server_id":"a"}`)
	assert.Equal(t, int64(gateway.CodeDenied), decodeError(t, body).Code)
}

func TestPolicyLimitsResourceSizeToolTimeAndRate(t *testing.T) {
	bsrv, gw := policyGateway(t)
	e := clientEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 30*time.Second)

	carol := connect(t, e, "carol", gw, carolToken)
	_, err := carol.ReadResource(ctx, "demo://resource/1")
	code, msg, _ := denial(t, err)
	assert.Equal(t, int64(gateway.CodeDenied), code)
	assert.Contains(t, msg, `denied by client "carol" policy: resource "demo://resource/1" (`)
	assert.Contains(t, msg, `(rule maxResourceBytes 10)`)

	start := time.Now()
	_, err = carol.CallTool(ctx, "b__sleep", map[string]any{"ms": 20000})
	code, msg, _ = denial(t, err)
	assert.Equal(t, int64(gateway.CodeToolTimeLimit), code)
	assert.Equal(t, `tool call cancelled after 300ms: maxToolTime of server "b" policy`, msg)
	assert.Less(t, time.Since(start), 5*time.Second)
	eventually(t, 10*time.Second, func() bool { return bsrv.Stats().CancelledCalls == 1 }, "the server was not told to stop")

	dave := connect(t, e, "dave", gw, daveToken)
	for range 2 {
		_, err := dave.CallTool(ctx, "a__echo", map[string]any{"text": "x"})
		require.NoError(t, err)
	}
	_, err = dave.CallTool(ctx, "a__echo", map[string]any{"text": "x"})
	code, msg, _ = denial(t, err)
	assert.Equal(t, int64(gateway.CodeRateLimited), code)
	assert.Equal(t, `rate limit of client "dave" policy exceeded`, msg)
	// Another client is not limited by dave's bucket.
	_, err = carol.CallTool(ctx, "a__echo", map[string]any{"text": "x"})
	assert.NoError(t, err)
}
