package mcpengine_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/internal/oauthtest"
	"github.com/mcpengine/mcpengine/telemetry"
)

// spanText is everything a span exporter would ship of a span: name,
// status, attributes, events and links with their attributes.
func spanText(s tracetest.SpanStub) string {
	var b strings.Builder
	kvs := func(attrs []attribute.KeyValue) {
		for _, kv := range attrs {
			fmt.Fprintf(&b, " %s=%s", kv.Key, kv.Value.String())
		}
	}
	fmt.Fprintf(&b, "%s [%s]", s.Name, s.Status.Description)
	kvs(s.Attributes)
	for _, ev := range s.Events {
		b.WriteString(" event " + ev.Name)
		kvs(ev.Attributes)
	}
	for _, l := range s.Links {
		kvs(l.Attributes)
	}
	if s.Resource != nil {
		kvs(s.Resource.Attributes())
	}
	return b.String()
}

// TestOAuthNoTokenInLogsOrSpans runs a login (dynamic registration with a
// client secret, authorization code with PKCE, refresh tokens), calls, a
// refresh after the server revoked the token, and a tool error, with the
// engine logging at debug level and tracing every call; no access token,
// refresh token, client secret, authorization code, PKCE verifier or
// challenge, or state appears in any log line or span.
func TestOAuthNoTokenInLogsOrSpans(t *testing.T) {
	k := protectedDemo(t, oauthtest.Config{PRMInHeader: true, RefreshTokens: true,
		AuthMethods: []string{oauthtest.AuthSecretPost}, ChallengeScope: []string{"mcp:basic"}})
	var logs oauthtest.LogBuffer
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	e := newEngine(t, mcpengine.Config{
		Logger:    slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Telemetry: telemetry.Providers{Tracer: tp},
		// Arguments on spans too: they are the caller's, and still carry
		// no token.
		TelemetryOptions: telemetry.Options{RecordArguments: true},
		OAuth:            mcpengine.OAuthOptions{UserAgent: redirectAgent(k)},
	})
	ctx := testCtx(t, 30*time.Second)

	a, err := e.Authorizer(oauthServer(k))
	require.NoError(t, err)
	require.NoError(t, a.Login(ctx))
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "secrets", Server: oauthServer(k)})
	require.NoError(t, err)
	_, err = s.ListTools(ctx)
	require.NoError(t, err)
	_, err = s.CallTool(ctx, "echo", map[string]any{"text": "before"})
	require.NoError(t, err)
	require.Positive(t, k.RevokeAccessTokens())
	_, err = s.CallTool(ctx, "echo", map[string]any{"text": "after the refresh"})
	require.NoError(t, err)
	res, err := s.CallTool(ctx, "fail", map[string]any{"message": "a tool error"})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.NoError(t, s.Close(ctx))

	require.Equal(t, 1, k.TokenRequests(oauthtest.GrantAuthorizationCode))
	require.Equal(t, 1, k.TokenRequests(oauthtest.GrantRefreshToken))
	require.Equal(t, 1, k.Registrations())
	_, tokenReqs, _ := k.Snapshot()
	require.NotEmpty(t, tokenReqs[0].Form.Get("client_secret"), "the client authenticated with a secret")
	require.NotEmpty(t, tokenReqs[0].Form.Get("code_verifier"))

	text := logs.String()
	require.Contains(t, text, "oauth:", "debug logs of the authorization were written")
	for i, line := range strings.Split(text, "\n") {
		if what, leaked := k.Leaked(line); leaked {
			t.Errorf("log line %d shows %s", i+1, what)
		}
	}
	stubs := spans.GetSpans()
	_, ok := spanNamed(stubs, "tools/call echo")
	require.True(t, ok, "the calls were traced; span names: %v", names(stubs))
	for _, st := range stubs {
		if what, leaked := k.Leaked(spanText(st)); leaked {
			t.Errorf("span %q shows %s", st.Name, what)
		}
	}
	assert.Greater(t, len(k.Secrets()), 6, "the kit saw the secrets it checks for")
}
