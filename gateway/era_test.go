package gateway_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/gateway"
	"github.com/mcpengine/mcpengine/messages"
)

// TestClientsOfEitherEraBehindOneEndpointReachUpstreamsOfEither: each
// upstream session negotiates its own era (here one stdio server of the
// stateless era and one of the handshake era), and the aggregated
// endpoint serves clients of both eras: the engine's own client, left to
// negotiate, settles on 2026-07-28 (server/discover, per-request _meta,
// no session id); pinned to 2025-11-25 it initializes a session. Either
// lists and calls the tools of both upstreams.
func TestClientsOfEitherEraBehindOneEndpointReachUpstreamsOfEither(t *testing.T) {
	g, gw := startGateway(t, gateway.Config{
		Servers: map[string]gateway.Server{
			"modern": {Target: engineServe("--era", "modern")},
			"legacy": {Target: engineServe("--era", "legacy")},
		},
	})
	for _, front := range []struct{ pin, want string }{
		{"", messages.Version20260728},
		{messages.Version20251125, messages.Version20251125},
	} {
		t.Run("front="+front.want, func(t *testing.T) {
			e := negotiatingEngine(t)
			if front.pin != "" {
				e = clientEngine(t, mcpengine.Config{ProtocolVersion: front.pin})
			}
			s := connect(t, e, "agg", gw, "")
			assert.Equal(t, front.want, s.ProtocolVersion())
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
		})
	}
	versions := map[string]string{}
	for name, h := range g.Health().Servers {
		require.NotEmpty(t, h.Sessions, name)
		versions[name] = h.Sessions[0].ProtocolVersion
	}
	assert.Equal(t, map[string]string{"modern": messages.Version20260728, "legacy": messages.Version20251125}, versions)
}

// TestModernRequestsAreCheckedLikeAnyServerOfTheEra: the mirrored headers
// must match the body (-32020), a version the gateway does not speak gets
// -32022 with the ones it does, and the handshake era's methods do not
// exist.
func TestModernRequestsAreCheckedLikeAnyServerOfTheEra(t *testing.T) {
	_, gw := startGateway(t, gateway.Config{Servers: map[string]gateway.Server{"a": {Target: engineServe()}}})
	meta := func(v string) string {
		return `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + v + `","io.modelcontextprotocol/clientCapabilities":{}}`
	}
	status, body, _ := post(t, gw.MCPURL(), "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a__echo","arguments":{"text":"x"},`+meta("2026-07-28")+`}}`,
		"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "b__echo")
	assert.Equal(t, 400, status)
	assert.Equal(t, int64(messages.CodeHeaderMismatch), decodeError(t, body).Code)

	status, body, _ = post(t, gw.MCPURL(), "", `{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{`+meta("2099-01-01")+`}}`,
		"Mcp-Protocol-Version", "2099-01-01", "Mcp-Method", "server/discover")
	assert.Equal(t, 400, status)
	e := decodeError(t, body)
	assert.Equal(t, int64(messages.CodeUnsupportedProtocolVersion), e.Code)
	assert.Contains(t, string(e.Data), messages.Version20260728)

	status, body, _ = post(t, gw.MCPURL(), "", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{`+meta("2026-07-28")+`}}`,
		"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "ping")
	assert.Equal(t, 404, status)
	assert.Equal(t, int64(messages.CodeMethodNotFound), decodeError(t, body).Code)

	status, body, h := post(t, gw.MCPURL(), "", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"a__echo","arguments":{"text":"hi"},`+meta("2026-07-28")+`}}`,
		"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "a__echo")
	assert.Equal(t, 200, status, "%s", body)
	assert.Empty(t, h.Get("Mcp-Session-Id"), "the stateless era has no session")
	assert.Contains(t, string(member(t, body, "result")), `"resultType":"complete"`)
}

// TestModernClientsGetNotificationsOnTheirListen: a client of the
// stateless era opens subscriptions/listen for its notification handler
// and subscriptions; the servers' list changes and the resources/updated
// of the URIs it subscribed to reach it on that listen.
func TestModernClientsGetNotificationsOnTheirListen(t *testing.T) {
	_, _, gw := twoServers(t, nil)
	s := connect(t, negotiatingEngine(t), "agg", gw, "")
	require.Equal(t, messages.Version20260728, s.ProtocolVersion())
	ctx := testCtx(t, 30*time.Second)

	var log notificationLog
	stop := s.OnNotification(log.add)
	defer stop()
	seen := log.seen
	waitListen := func(what string, cond func(mcpengine.ListenStatus) bool) {
		for {
			st, changed := s.Listen()
			if cond(st) {
				return
			}
			select {
			case <-changed:
			case <-ctx.Done():
				t.Fatalf("the listen never got %s: %+v", what, st)
			}
		}
	}
	waitListen("open", func(st mcpengine.ListenStatus) bool {
		return st.Phase == mcpengine.ListenOpen && st.Acknowledged != nil && st.Acknowledged.ToolsListChanged
	})
	_, err := s.CallTool(ctx, "a__notify", map[string]any{"kind": "tools"})
	require.NoError(t, err)
	eventually(t, 10*time.Second, seen(messages.NotificationToolsListChanged, ""), "tools/list_changed")

	require.NoError(t, s.Subscribe(ctx, "demo://resource/5"))
	waitListen("the subscription", func(st mcpengine.ListenStatus) bool {
		return st.Phase == mcpengine.ListenOpen && st.Acknowledged != nil && slices.Contains(st.Acknowledged.ResourceSubscriptions, "demo://resource/5")
	})
	_, err = s.CallTool(ctx, "a__touch", map[string]any{"uri": "demo://resource/5"})
	require.NoError(t, err)
	eventually(t, 10*time.Second, seen(messages.NotificationResourcesUpdated, "demo://resource/5"), "resources/updated")
}

// TestClosingTheGatewayEndsOpenListens: a listen's POST stays open for as
// long as the client listens; closing the gateway ends it, so that
// shutting the listener down does not wait for the client.
func TestClosingTheGatewayEndsOpenListens(t *testing.T) {
	g, err := gateway.New(testCtx(t, 10*time.Second), gateway.Config{
		Servers: map[string]gateway.Server{"a": {Target: engineServe()}},
		Engine:  mcpengine.Config{Backoff: fastBackoff},
	})
	require.NoError(t, err)
	gw, err := g.Listen("127.0.0.1:0", gateway.ListenOptions{})
	require.NoError(t, err)
	require.NoError(t, g.WaitReady(testCtx(t, 20*time.Second)))

	s := connect(t, negotiatingEngine(t), "agg", gw, "")
	stop := s.OnNotification(func(mcpengine.Notification) {})
	defer stop()
	ctx := testCtx(t, 30*time.Second)
	for {
		st, changed := s.Listen()
		if st.Phase == mcpengine.ListenOpen {
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("the listen never opened: %+v", st)
		}
	}
	// A deadline far beyond what ending a listen takes: Close must not
	// have to wait for the client to stop listening.
	require.NoError(t, g.Close(testCtx(t, 20*time.Second)))
}

// TestModernClientsAnswerServerRequestsAsInputRequired: a client of the
// stateless era takes the servers' sampling, elicitation and roots
// requests as input_required answers and sends its request again with
// their results; the request, forwarded once, completes with them.
func TestModernClientsAnswerServerRequestsAsInputRequired(t *testing.T) {
	_, _, gw := twoServers(t, nil)
	s := connect(t, newClientEngine(t, fullConfig()), "agg", gw, "")
	require.Equal(t, messages.Version20260728, s.ProtocolVersion())
	ctx := testCtx(t, 30*time.Second)
	serverRequestsReachTheClient(t, ctx, s)
}

func TestAnUnknownRequestStateIsRefused(t *testing.T) {
	_, gw := startGateway(t, gateway.Config{Servers: map[string]gateway.Server{"a": {Target: engineServe()}}})
	status, body, _ := post(t, gw.MCPURL(), "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a__echo","arguments":{"text":"x"},"requestState":"forged","inputResponses":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "a__echo")
	assert.Equal(t, 200, status)
	assert.Equal(t, int64(messages.CodeInvalidParams), decodeError(t, body).Code)
}

// TestAnInputRequiredNobodyAnswersIsCancelledUpstream: a client that
// never sends its request again loses it after ClientRequestTimeout: the
// server's request is cancelled, and the requestState no longer works.
func TestAnInputRequiredNobodyAnswersIsCancelledUpstream(t *testing.T) {
	bsrv, _, gw := twoServers(t, func(c *gateway.Config) { c.ClientRequestTimeout = 100 * time.Millisecond })
	before := bsrv.Stats().CancelledCalls
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}`
	hdr := []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "b__sample"}
	status, body, _ := post(t, gw.MCPURL(), "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"b__sample","arguments":{"prompt":"hi"},`+meta+`}}`, hdr...)
	require.Equal(t, 200, status, "%s", body)
	var res messages.InputRequiredResult
	require.NoError(t, messages.Unmarshal(member(t, body, "result"), &res))
	require.Equal(t, messages.ResultTypeInputRequired, res.ResultType)
	require.Len(t, res.InputRequests, 1)
	for _, in := range res.InputRequests {
		assert.Equal(t, messages.MethodSamplingCreateMessage, in.Method)
	}
	require.NotEmpty(t, res.RequestState)

	eventually(t, 10*time.Second, func() bool { return bsrv.Stats().CancelledCalls > before }, "the upstream call was not cancelled")
	status, body, _ = post(t, gw.MCPURL(), "", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b__sample","arguments":{"prompt":"hi"},"requestState":"`+res.RequestState+`",`+meta+`}}`, hdr...)
	assert.Equal(t, 200, status)
	assert.Equal(t, int64(messages.CodeInvalidParams), decodeError(t, body).Code)
}
