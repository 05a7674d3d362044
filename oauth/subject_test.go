package oauth

import (
	"context"
	"net/url"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
)

// TestStoreKeyWithoutSubjectIsThePreSubjectKey: records stored before
// subjects existed stay readable, because the empty subject adds nothing
// to the key; a subject is quoted, so no subject spells another's key.
func TestStoreKeyWithoutSubjectIsThePreSubjectKey(t *testing.T) {
	const res = "https://mcp.example.com/mcp"
	assert.Equal(t, "mcpengine-oauth/v1 https://mcp.example.com/mcp grant:authorization_code dynamic",
		storeKey(res, GrantAuthorizationCode, Config{}, ""))
	alice := storeKey(res, GrantAuthorizationCode, Config{}, "alice")
	assert.Equal(t, `mcpengine-oauth/v1 https://mcp.example.com/mcp grant:authorization_code dynamic subject:"alice"`, alice)
	assert.NotEqual(t, alice, storeKey(res, GrantAuthorizationCode, Config{}, `alice" subject:"bob`))

	// A file store written by a release without subjects (the key above)
	// gives its token to an Authorizer without a subject, not to alice's.
	store := NewFileStore(filepath.Join(t.TempDir(), "tokens"))
	ctx := context.Background()
	rec := testRecord("at-old")
	require.NoError(t, store.Save(ctx, "mcpengine-oauth/v1 https://mcp.example.com/mcp grant:authorization_code dynamic", rec))
	old, err := New(res, Config{}, Options{Store: store})
	require.NoError(t, err)
	tok, err := old.Token(ctx)
	require.NoError(t, err)
	assert.Equal(t, "at-old", tok.AccessToken)
	a, err := New(res, Config{}, Options{Store: store, Subject: "alice"})
	require.NoError(t, err)
	got, err := store.Load(ctx, a.impl.storeKey)
	require.NoError(t, err)
	assert.Nil(t, got, "alice's key holds nothing")
}

// subjectsAgent records whose sign-in it was asked to run.
type subjectsAgent struct {
	UserAgent
	mu       sync.Mutex
	redirect []string
	signIns  []string
}

func (s *subjectsAgent) RedirectURI(ctx context.Context) (string, error) {
	s.mu.Lock()
	s.redirect = append(s.redirect, SubjectFromContext(ctx))
	s.mu.Unlock()
	return s.UserAgent.RedirectURI(ctx)
}

func (s *subjectsAgent) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	s.mu.Lock()
	s.signIns = append(s.signIns, SubjectFromContext(ctx))
	s.mu.Unlock()
	return s.UserAgent.Authorize(ctx, authURL)
}

// TestSubjectsShareAStoreButNotTokens: two subjects' Authorizers of one
// server and one store sign in separately (the user agent told whose
// sign-in each is), hold different tokens under different keys, and one's
// Logout leaves the other's token in place, in memory and in the store.
func TestSubjectsShareAStoreButNotTokens(t *testing.T) {
	k := newKit(t, kitConfig{PRMInHeader: true, RefreshTokens: true})
	store := NewMemoryStore()
	agent := &subjectsAgent{UserAgent: NewRedirectAgent(k.Client(), testRedirectURI)}
	ctx := context.Background()
	tokens := map[string]*oauth2.Token{}
	auths := map[string]*Authorizer{}
	for _, subject := range []string{"alice", "bob"} {
		a := k.authorizer(Config{}, Options{Store: store, UserAgent: agent, Subject: subject})
		assert.Equal(t, subject, a.Subject())
		require.NoError(t, a.Login(ctx))
		tok, err := a.Token(ctx)
		require.NoError(t, err)
		tokens[subject], auths[subject] = tok, a
	}
	assert.Equal(t, []string{"alice", "bob"}, agent.redirect)
	assert.Equal(t, []string{"alice", "bob"}, agent.signIns)
	require.NotEqual(t, tokens["alice"].AccessToken, tokens["bob"].AccessToken)

	require.NoError(t, auths["alice"].Logout(ctx))
	rec, err := store.Load(ctx, auths["alice"].impl.storeKey)
	require.NoError(t, err)
	assert.Nil(t, rec, "alice's record is gone")
	rec, err = store.Load(ctx, auths["bob"].impl.storeKey)
	require.NoError(t, err)
	require.NotNil(t, rec, "bob's record stays")
	assert.Equal(t, tokens["bob"].AccessToken, rec.Token.AccessToken)
	tok, err := auths["bob"].Token(ctx)
	require.NoError(t, err)
	assert.Equal(t, tokens["bob"].AccessToken, tok.AccessToken)

	// A later process's Authorizer for bob finds his token in the store.
	later := k.authorizer(Config{}, Options{Store: store, Subject: "bob"})
	tok, err = later.Token(ctx)
	require.NoError(t, err)
	assert.Equal(t, tokens["bob"].AccessToken, tok.AccessToken)
	assert.Len(t, agent.signIns, 2, "nobody signed in again")
}
