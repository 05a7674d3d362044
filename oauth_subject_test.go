package mcpengine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
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

// callLog is the protected server's record of which bearer token each
// tools/call carried, by the user named in the call's text ("alice/3").
type callLog struct {
	mu     sync.Mutex
	tokens map[string]map[string]int // user -> token -> calls
}

func (l *callLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Arguments struct {
					Text string `json:"text"`
				} `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call" {
			user, _, _ := strings.Cut(msg.Params.Arguments.Text, "/")
			tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			l.mu.Lock()
			if l.tokens[user] == nil {
				l.tokens[user] = map[string]int{}
			}
			l.tokens[user][tok]++
			l.mu.Unlock()
		}
		next.ServeHTTP(w, r)
	})
}

// of returns the tokens the calls of user carried, and how often.
func (l *callLog) of(user string) map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]int{}
	for tok, n := range l.tokens[user] {
		out[tok] = n
	}
	return out
}

func (l *callLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.tokens)
}

// subjectAgent is a web application's user agent: it is told whose
// sign-in it runs (the subject in its context) and counts them; the kit's
// authorization endpoint redirects at once, as if that user consented.
type subjectAgent struct {
	inner   oauth.UserAgent
	mu      sync.Mutex
	signIns map[string]int
}

func (a *subjectAgent) RedirectURI(ctx context.Context) (string, error) {
	return a.inner.RedirectURI(ctx)
}

func (a *subjectAgent) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	subject := oauth.SubjectFromContext(ctx)
	if subject == "" {
		return nil, errors.New("a sign-in for nobody")
	}
	a.mu.Lock()
	a.signIns[subject]++
	a.mu.Unlock()
	return a.inner.Authorize(ctx, authURL)
}

func (a *subjectAgent) count(subject string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.signIns[subject]
}

// protectedLoggedDemo is protectedDemo whose calls are logged by token.
func protectedLoggedDemo(t *testing.T, cfg oauthtest.Config) (*oauthtest.Kit, *callLog) {
	log := &callLog{tokens: map[string]map[string]int{}}
	cfg.Resource = log.wrap(demoserver.New(demoserver.Options{}).StreamableHandler(demoserver.HTTPOptions{}))
	return oauthtest.New(t, cfg), log
}

// callAs makes n echo calls on s in the name of user, each checked.
func callAs(ctx context.Context, s *mcpengine.Session, user string, n int) error {
	for i := range n {
		want := fmt.Sprintf("%s/%d", user, i)
		res, err := s.CallTool(ctx, "echo", map[string]any{"text": want})
		if err != nil {
			return fmt.Errorf("%s: %w", want, err)
		}
		if res.IsError || len(res.Content) != 1 || res.Content[0].Text != want {
			return fmt.Errorf("%s answered %+v", want, res)
		}
	}
	return nil
}

// TestOAuthSubjectsEachCallCarriesOnlyItsUsersToken: two users behind one
// engine hold two sessions each to one OAuth-protected server. Each user
// signs in once (the user agent is told who), and the server sees each
// user's calls carry only that user's token. Alice's token is then
// revoked and she logs out and signs in again: her calls carry her new
// token, while Bob's calls go on with his own, untouched, and he is never
// asked to sign in again.
func TestOAuthSubjectsEachCallCarriesOnlyItsUsersToken(t *testing.T) {
	k, log := protectedLoggedDemo(t, oauthtest.Config{PRMInHeader: true, RefreshTokens: true})
	agent := &subjectAgent{inner: redirectAgent(k), signIns: map[string]int{}}
	e := newEngine(t, mcpengine.Config{OAuth: mcpengine.OAuthOptions{UserAgent: agent}})
	ctx := testCtx(t, time.Minute)
	server := oauthServer(k)

	users := []string{"alice", "bob"}
	sessions := map[string][]*mcpengine.Session{}
	for _, u := range users {
		for i := range 2 {
			s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: fmt.Sprintf("%s-%d", u, i), Server: server, Subject: u})
			require.NoError(t, err)
			sessions[u] = append(sessions[u], s)
		}
	}
	for _, u := range users {
		assert.Equal(t, 1, agent.count(u), "one sign-in for %s's two sessions", u)
	}
	assert.Equal(t, 2, k.TokenRequests(oauthtest.GrantAuthorizationCode), "one authorization per user")

	tokenOf := func(user string) string {
		a, err := e.SubjectAuthorizer(server, user)
		require.NoError(t, err)
		require.Equal(t, user, a.Subject())
		tok, err := a.Token(ctx)
		require.NoError(t, err)
		return tok.AccessToken
	}
	callAll := func(user string) {
		for _, s := range sessions[user] {
			require.NoError(t, callAs(ctx, s, user, 3))
		}
	}
	alice, bob := tokenOf("alice"), tokenOf("bob")
	require.NotEqual(t, alice, bob)
	callAll("alice")
	callAll("bob")
	assert.Equal(t, map[string]int{alice: 6}, log.of("alice"), "alice's calls carry her token only")
	assert.Equal(t, map[string]int{bob: 6}, log.of("bob"), "bob's calls carry his token only")

	// Alice's grant is revoked and she logs out: her stored token is gone,
	// and her next call signs her in again.
	require.True(t, k.RevokeAccessToken(alice))
	a, err := e.SubjectAuthorizer(server, "alice")
	require.NoError(t, err)
	require.NoError(t, a.Logout(ctx))
	log.reset()
	callAll("alice")
	callAll("bob")
	alice2 := tokenOf("alice")
	require.NotEqual(t, alice, alice2)
	assert.Equal(t, 2, agent.count("alice"), "alice signed in again")
	assert.Equal(t, 1, agent.count("bob"), "bob was not asked to sign in again")
	assert.Equal(t, map[string]int{alice2: 6}, log.of("alice"), "alice's calls carry her new token only")
	assert.Equal(t, map[string]int{bob: 6}, log.of("bob"), "bob's calls carry his same token, untouched")
	assert.Equal(t, bob, tokenOf("bob"))
	assert.Equal(t, 0, k.TokenRequests(oauthtest.GrantRefreshToken), "no refresh for anyone")

	// No subject is today's behaviour: the engine's own Authorizer, which
	// shares nothing with the users'.
	own, err := e.Authorizer(server)
	require.NoError(t, err)
	assert.NotSame(t, a, own)
	assert.Empty(t, own.Subject())
}

// TestOAuthSubjectsRefreshStorm: 1000 sessions of 100 users (10 each) to one
// protected server cost one sign-in per user. Every access token is then
// revoked at once (as if all expired together) and 2000 calls start, 2
// per session; the kit answers refreshes only once all 2000 were refused
// with the old tokens. Each user's sessions share one refresh: 100 refresh
// requests, and no call fails or carries another user's token.
func TestOAuthSubjectsRefreshStorm(t *testing.T) {
	const users, sessionsPerUser, callsPerSession = 100, 10, 2
	k, log := protectedLoggedDemo(t, oauthtest.Config{PRMInHeader: true, RefreshTokens: true})
	agent := &subjectAgent{inner: redirectAgent(k), signIns: map[string]int{}}
	e := newEngine(t, mcpengine.Config{OAuth: mcpengine.OAuthOptions{UserAgent: agent}})
	ctx := testCtx(t, 2*time.Minute)
	server := oauthServer(k)
	user := func(i int) string { return fmt.Sprintf("user%02d", i) }

	type userSession struct {
		user string
		s    *mcpengine.Session
	}
	all := make([]userSession, users*sessionsPerUser)
	errs := make([]error, len(all))
	var wg sync.WaitGroup
	for i := range all {
		all[i].user = user(i % users)
		wg.Add(1)
		// Exits when its session is connected or failed.
		go func() {
			defer wg.Done()
			all[i].s, errs[i] = e.Connect(ctx, mcpengine.SessionConfig{
				Name: fmt.Sprintf("s%03d", i), Server: server, Subject: all[i].user})
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	for i := range users {
		require.Equal(t, 1, agent.count(user(i)), "one sign-in for %s", user(i))
	}
	require.Equal(t, users, k.TokenRequests(oauthtest.GrantAuthorizationCode))
	for _, us := range all {
		require.NoError(t, us.s.Ping(ctx)) // quiet before the hold (see HoldRefreshes)
	}

	require.Equal(t, users, k.RevokeAccessTokens())
	refusedBefore := k.RefusedPosts()
	const calls = users * sessionsPerUser * callsPerSession
	k.HoldRefreshes(calls)
	var echoes []echoCall
	for _, us := range all {
		for j := range callsPerSession {
			echoes = append(echoes, echoCall{s: us.s, text: fmt.Sprintf("%s/%d", us.user, j)})
		}
	}
	failed := echoAllAtOnce(t, ctx, echoes)
	assert.Equal(t, users, k.TokenRequests(oauthtest.GrantRefreshToken), "one refresh per user")
	assert.Equal(t, users, k.TokenRequests(oauthtest.GrantAuthorizationCode), "no new sign-in")
	assert.Equal(t, calls, k.RefusedPosts()-refusedBefore, "every call was refused once with its revoked token, none twice")

	// Each user's calls carried that user's tokens only: the revoked one
	// (refused) and the refreshed one, never a token another user's calls
	// carried.
	owner := map[string]string{}
	for i := range users {
		u := user(i)
		a, err := e.SubjectAuthorizer(server, u)
		require.NoError(t, err)
		tok, err := a.Token(ctx)
		require.NoError(t, err)
		got := log.of(u)
		assert.Equal(t, sessionsPerUser*callsPerSession, got[tok.AccessToken], "%s's calls were served with the refreshed token", u)
		for tok := range got {
			if other, ok := owner[tok]; ok {
				t.Errorf("a token of %s was carried by %s's calls", other, u)
			}
			owner[tok] = u
		}
	}
	t.Logf("%d calls across %d sessions of %d users: %d failures, %d refresh requests",
		calls, len(all), users, failed, k.TokenRequests(oauthtest.GrantRefreshToken))
}
