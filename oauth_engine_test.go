package mcpengine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/internal/oauthtest"
	"github.com/mcpengine/mcpengine/oauth"
)

// protectedDemo serves a demo server's Streamable HTTP handler behind the
// OAuth kit's bearer check: the engine must authorize before it can even
// initialize.
func protectedDemo(t *testing.T, cfg oauthtest.Config) *oauthtest.Kit {
	cfg.Resource = demoserver.New(demoserver.Options{}).StreamableHandler(demoserver.HTTPOptions{})
	return oauthtest.New(t, cfg)
}

// oauthServer is the kit's server as an mcpServers entry with
// "auth": {"oauth": {}} (dynamic registration, authorization code).
func oauthServer(k *oauthtest.Kit) mcpengine.ServerConfig {
	return mcpengine.ServerConfig{URL: k.ServerURL(), Auth: &mcpengine.AuthConfig{OAuth: &oauth.Config{}}}
}

// redirectAgent is the headless user agent: the kit's authorization
// endpoint redirects at once, and the agent reads the code off the
// redirect.
func redirectAgent(k *oauthtest.Kit) oauth.UserAgent {
	return oauth.NewRedirectAgent(k.Client(), oauthtest.RedirectURI)
}

// TestOAuthRefreshWith1000CallsInFlightAcross100Sessions: 100 sessions of
// one engine to one protected server share one Authorizer, so connecting
// them all at once costs one authorization. The server then revokes the
// token; 1000 calls (10 per session) start together, and the kit answers
// the refresh only once all 1000 were refused with the old token: every
// call was in flight when the token went bad. They share one refresh and
// none fails.
func TestOAuthRefreshWith1000CallsInFlightAcross100Sessions(t *testing.T) {
	const sessions, callsPerSession = 100, 10
	k := protectedDemo(t, oauthtest.Config{PRMInHeader: true, RefreshTokens: true})
	e := newEngine(t, mcpengine.Config{OAuth: mcpengine.OAuthOptions{UserAgent: redirectAgent(k)}})
	ctx := testCtx(t, 2*time.Minute)

	all := make([]*mcpengine.Session, sessions)
	var wg sync.WaitGroup
	connectErrs := make([]error, sessions)
	for i := range sessions {
		wg.Add(1)
		// Exits when its session is connected or failed.
		go func() {
			defer wg.Done()
			all[i], connectErrs[i] = e.Connect(ctx, mcpengine.SessionConfig{Name: fmt.Sprintf("s%03d", i), Server: oauthServer(k)})
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(connectErrs...))
	authReqs, _, _ := k.Snapshot()
	require.Len(t, authReqs, 1, "one authorization for 100 sessions")
	require.Equal(t, 1, k.TokenRequests(oauthtest.GrantAuthorizationCode))
	require.Equal(t, 1, k.Registrations())
	require.Equal(t, 0, k.TokenRequests(oauthtest.GrantRefreshToken))
	// A ping answered means notifications/initialized was accepted before
	// it: that notification is a barrier the calls would wait behind.
	for _, s := range all {
		require.NoError(t, s.Ping(ctx))
	}

	require.Positive(t, k.RevokeAccessTokens())
	refusedBefore := k.RefusedPosts()
	const calls = sessions * callsPerSession
	k.HoldRefreshes(calls)
	var echoes []echoCall
	for i, s := range all {
		for j := range callsPerSession {
			echoes = append(echoes, echoCall{s: s, text: fmt.Sprintf("%d/%d", i, j)})
		}
	}
	failed := echoAllAtOnce(t, ctx, echoes)
	assert.Equal(t, 1, k.TokenRequests(oauthtest.GrantRefreshToken), "exactly one refresh for 1000 calls")
	assert.Equal(t, 1, k.TokenRequests(oauthtest.GrantAuthorizationCode), "no new authorization")
	assert.Equal(t, calls, k.RefusedPosts()-refusedBefore, "every call was refused once with the revoked token, none twice")
	t.Logf("%d calls across %d sessions: %d failures, %d refresh request(s), %d calls refused with the revoked token",
		calls, sessions, failed, k.TokenRequests(oauthtest.GrantRefreshToken), k.RefusedPosts()-refusedBefore)
}

// TestOAuthUncurable401FailsConnectPromptly: a server that refuses every
// token, even a fresh one, fails Connect after one round of authorization
// with ErrUnauthorized and the server's error_description; the session is
// closed for good, not backing off, and sends nothing more. The connect
// context is a minute long: a session that retried would run into it.
func TestOAuthUncurable401FailsConnectPromptly(t *testing.T) {
	k := protectedDemo(t, oauthtest.Config{PRMInHeader: true, RefreshTokens: true, RejectAllTokens: true})
	e := newEngine(t, mcpengine.Config{OAuth: mcpengine.OAuthOptions{UserAgent: redirectAgent(k)}})
	ctx := testCtx(t, time.Minute)

	start := time.Now()
	s, err := e.Open(ctx, mcpengine.SessionConfig{Name: "refused", Server: oauthServer(k)})
	require.NoError(t, err)
	err = s.WaitReady(ctx)
	t.Logf("the session failed after %v: %v", time.Since(start), err)
	require.Error(t, err)
	require.NotErrorIs(t, err, context.DeadlineExceeded, "Connect ran into its context: the session kept retrying")
	require.ErrorIs(t, err, mcpengine.ErrUnauthorized)
	var ue *mcpengine.UnauthorizedError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, oauthtest.RejectedDescription, ue.Description, "the server's error_description")
	assert.Equal(t, "invalid_token", ue.Code)
	var closed *mcpengine.ClosedError
	require.ErrorAs(t, err, &closed, "closed for good")
	assert.Equal(t, mcpengine.StateClosed, s.State())
	assert.Zero(t, s.Stats().Restarts, "no restart after a permanent failure")

	_, asAtFailure := k.Hits()
	rsAtFailure, _ := k.Hits()
	assert.Equal(t, 1, k.TokenRequests(""), "one round of authorization: one token request")
	authReqs, _, _ := k.Snapshot()
	assert.Len(t, authReqs, 1)

	// Closing the engine waits for every session's actor to stop: a
	// session still backing off would have dialed again by now or be
	// stopped here, and its requests would show.
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, e.Close(cctx))
	rsAfter, asAfter := k.Hits()
	assert.Equal(t, asAtFailure, asAfter, "no request reached the authorization server after the failure")
	assert.Equal(t, len(rsAtFailure), len(rsAfter), "no request reached the server after the failure")

	// Connect says the same.
	e2 := newEngine(t, mcpengine.Config{OAuth: mcpengine.OAuthOptions{UserAgent: redirectAgent(k)}})
	_, err = e2.Connect(ctx, mcpengine.SessionConfig{Name: "refused", Server: oauthServer(k)})
	require.ErrorIs(t, err, mcpengine.ErrUnauthorized)
	require.NotErrorIs(t, err, context.DeadlineExceeded)
}

// TestOAuthStepUpThroughTheEngine: the session connects with the scope
// the challenge names; a tool call needs a wider one, the server answers
// 403 insufficient_scope, the engine re-authorizes with the union of the
// scopes and the same call succeeds, and later calls need nothing more.
func TestOAuthStepUpThroughTheEngine(t *testing.T) {
	k := protectedDemo(t, oauthtest.Config{PRMInHeader: true, ChallengeScope: []string{"mcp:read"},
		NeedScopes: func(method string) []string {
			if method == "tools/call" {
				return []string{"mcp:write"}
			}
			return nil
		}})
	e := newEngine(t, mcpengine.Config{OAuth: mcpengine.OAuthOptions{UserAgent: redirectAgent(k)}})
	ctx := testCtx(t, 30*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "step-up", Server: oauthServer(k)})
	require.NoError(t, err)
	_, err = s.ListTools(ctx)
	require.NoError(t, err)
	authReqs, _, _ := k.Snapshot()
	require.Len(t, authReqs, 1)
	assert.Equal(t, "mcp:read", authReqs[0].Get("scope"))

	res, err := s.CallTool(ctx, "echo", map[string]any{"text": "needs write"})
	require.NoError(t, err)
	require.False(t, res.IsError)
	require.Len(t, res.Content, 1)
	assert.Equal(t, "needs write", res.Content[0].Text)

	authReqs, _, _ = k.Snapshot()
	require.Len(t, authReqs, 2, "one re-authorization")
	assert.ElementsMatch(t, []string{"mcp:read", "mcp:write"}, strings.Fields(authReqs[1].Get("scope")), "the union of the scopes")
	assert.Equal(t, 2, k.TokenRequests(oauthtest.GrantAuthorizationCode))

	_, err = s.CallTool(ctx, "echo", map[string]any{"text": "again"})
	require.NoError(t, err)
	authReqs, _, _ = k.Snapshot()
	assert.Len(t, authReqs, 2, "the wider token serves later calls")
	assert.Equal(t, mcpengine.StateReady, s.State())
}

// echoCall is one echo a session makes in echoAllAtOnce.
type echoCall struct {
	s    *mcpengine.Session
	text string
}

// echoAllAtOnce makes every call on a goroutine of its own, all released
// at once (a storm against tokens revoked together), and fails t with the
// count and the first call that failed or answered other than its text.
// It returns how many failed.
func echoAllAtOnce(t *testing.T, ctx context.Context, calls []echoCall) (failed int) {
	t.Helper()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		failures []error
	)
	start := make(chan struct{})
	for _, c := range calls {
		wg.Add(1)
		// Exits when its call returns.
		go func() {
			defer wg.Done()
			<-start
			res, err := c.s.CallTool(ctx, "echo", map[string]any{"text": c.text})
			if err == nil && (res.IsError || len(res.Content) != 1 || res.Content[0].Text != c.text) {
				err = fmt.Errorf("call %s answered %+v", c.text, res)
			}
			if err != nil {
				mu.Lock()
				failures = append(failures, err)
				mu.Unlock()
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(failures) > 0 {
		t.Errorf("%d of %d calls failed; the first: %v", len(failures), len(calls), failures[0])
	}
	return len(failures)
}
