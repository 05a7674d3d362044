package oauth

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/internal/oauthtest"
)

// migrationKits is a resource authorized by one authorization server
// (old) that moves to another (next) when the test says so.
func migrationKits(t *testing.T, nextCfg kitConfig) (old *kit, next *oauthtest.Kit) {
	// Refresh tokens, so that a client that keeps to the old server has
	// something to refresh there instead of coming to the new one.
	old = newKit(t, kitConfig{RefreshTokens: true, PRMInHeader: true})
	return old, oauthtest.New(t, nextCfg)
}

// TestAuthorizationServerMigration: the resource's metadata names another
// authorization server mid-session and refuses the old server's token
// (SEP-2352). The client reads the metadata again, drops what it held
// from the old server (registration, tokens, the stored record),
// registers at the new one and authorizes there, and the call that met
// the refusal succeeds. Nothing of the old registration reaches the new
// server and the old server sees no request after the move.
func TestAuthorizationServerMigration(t *testing.T) {
	old, next := migrationKits(t, kitConfig{})
	store := NewMemoryStore()
	a := old.authorizer(Config{}, Options{Store: store})
	c := old.mcpClient(a)
	ctx := context.Background()

	status, err := old.Call(c, "tools/list")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	before, err := store.Load(ctx, a.impl.storeKey)
	require.NoError(t, err)
	require.NotNil(t, before)
	require.Equal(t, old.Issuer(), before.Issuer)
	_, oldTokenReqs, _ := old.Snapshot()

	old.MoveTo(next)
	status, err = old.Call(c, "tools/call")
	require.NoError(t, err, "the call that met the move succeeds after authorizing at the new server")
	require.Equal(t, http.StatusOK, status)

	assert.Equal(t, 1, next.Registrations(), "the client registered at the new authorization server")
	authReqs, tokenReqs, _ := next.Snapshot()
	require.NotEmpty(t, authReqs)
	require.NotEmpty(t, tokenReqs)
	for _, q := range authReqs {
		assert.NotEqual(t, before.ClientID, q.Get("client_id"), "the old registration's client id at the new authorize endpoint")
	}
	for _, r := range tokenReqs {
		assert.NotEqual(t, before.ClientID, r.ClientID, "the old registration's client id at the new token endpoint")
		assert.NotEqual(t, oauthtest.GrantRefreshToken, r.Form.Get("grant_type"), "the old refresh token at the new server")
	}
	_, oldTokenReqsAfter, _ := old.Snapshot()
	assert.Len(t, oldTokenReqsAfter, len(oldTokenReqs), "no refresh or grant at the old server after the move")

	after, err := store.Load(ctx, a.impl.storeKey)
	require.NoError(t, err)
	require.NotNil(t, after)
	assert.Equal(t, next.Issuer(), after.Issuer, "the stored record is the new server's")
	assert.NotEqual(t, before.ClientID, after.ClientID)
	assert.NotEqual(t, before.Token.AccessToken, after.Token.AccessToken)
	assert.NotEqual(t, before.Token.RefreshToken, after.Token.RefreshToken)

	// The next call, and another process sharing the store, use the new
	// server's token without authorizing again.
	status, err = old.Call(c, "tools/list")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	again := old.authorizer(Config{}, Options{Store: store})
	status, err = old.Call(old.mcpClient(again), "tools/list")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, 1, next.Registrations())
	assert.Equal(t, 1, next.TokenRequests(oauthtest.GrantAuthorizationCode))
}

// TestAuthorizationServerMigrationDropsOldRecordWhenNewFails: credentials
// bound to the old authorization server are discarded even when the new
// server refuses to authorize: the store no longer holds them and the
// call fails with ErrUnauthorized.
func TestAuthorizationServerMigrationDropsOldRecordWhenNewFails(t *testing.T) {
	old, next := migrationKits(t, kitConfig{AuthError: "access_denied"})
	store := NewMemoryStore()
	a := old.authorizer(Config{}, Options{Store: store})
	c := old.mcpClient(a)
	status, err := old.Call(c, "tools/list")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)

	old.MoveTo(next)
	_, err = old.Call(c, "tools/list")
	var ue *UnauthorizedError
	require.True(t, errors.As(err, &ue), "error: %v", err)
	assert.Equal(t, "access_denied", ue.Code)
	rec, err := store.Load(context.Background(), a.impl.storeKey)
	require.NoError(t, err)
	assert.Nil(t, rec, "the old server's record is deleted")
	assert.Equal(t, 1, old.TokenRequests(""), "the old server saw only the first grant")
}

// TestAuthorizationServerMigrationConfiguredClient: a configured client
// id was used at the old authorization server, so it (and its secret)
// belongs to it: the client refuses to present it to the new one and
// says what to configure, on every attempt.
func TestAuthorizationServerMigrationConfiguredClient(t *testing.T) {
	old := newKit(t, kitConfig{PreClients: map[string]string{"pre-client": "pre-secret-" + oauthtest.SecretMarker}})
	next := oauthtest.New(t, kitConfig{PreClients: map[string]string{"pre-client": "other"}})
	store := NewMemoryStore()
	a := old.authorizer(Config{ClientID: "pre-client", ClientSecret: "pre-secret-" + oauthtest.SecretMarker}, Options{Store: store})
	c := old.mcpClient(a)
	status, err := old.Call(c, "tools/list")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)

	old.MoveTo(next)
	_, err = old.Call(c, "tools/list")
	require.ErrorIs(t, err, ErrUnauthorized)
	assert.Contains(t, err.Error(), next.Issuer())
	// Every later attempt, and another process sharing the store, are
	// refused the same way: the binding is kept, the tokens are not.
	_, err = old.Call(c, "tools/list")
	require.ErrorIs(t, err, ErrUnauthorized)
	assert.Contains(t, err.Error(), next.Issuer())
	again := old.authorizer(Config{ClientID: "pre-client", ClientSecret: "pre-secret-" + oauthtest.SecretMarker}, Options{Store: store})
	_, err = old.Call(old.mcpClient(again), "tools/list")
	require.ErrorIs(t, err, ErrUnauthorized)
	rec, err := store.Load(context.Background(), a.impl.storeKey)
	require.NoError(t, err)
	require.NotNil(t, rec)
	assert.Equal(t, old.Issuer(), rec.Issuer)
	assert.Nil(t, rec.Token, "no token of the old server is kept")
	authReqs, tokenReqs, regs := next.Snapshot()
	assert.Empty(t, authReqs)
	assert.Empty(t, tokenReqs)
	assert.Empty(t, regs)
}
