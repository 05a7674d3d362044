package oauth

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
)

const concurrentCalls = 200

// callConcurrently sends n requests through c at once and returns their
// statuses and errors.
func callConcurrently(k *kit, c *http.Client, n int) (statuses []int, errs []error) {
	statuses, errs = make([]int, n), make([]error, n)
	var start, wg sync.WaitGroup
	start.Add(1)
	for i := range n {
		wg.Add(1)
		// Exits after its one request.
		go func() {
			defer wg.Done()
			start.Wait()
			statuses[i], errs[i] = k.Call(c, "tools/list")
		}()
	}
	start.Done()
	wg.Wait()
	return statuses, errs
}

func requireAllOK(t *testing.T, statuses []int, errs []error) {
	t.Helper()
	for i := range statuses {
		require.NoError(t, errs[i], "request %d", i)
		require.Equal(t, http.StatusOK, statuses[i], "request %d", i)
	}
}

// TestSingleFlightAuthorization: 200 concurrent requests without a token
// all get a 401, and share one discovery, one registration, one
// authorization and one token request.
func TestSingleFlightAuthorization(t *testing.T) {
	k := newKit(t, kitConfig{PRMInHeader: true})
	a := k.authorizer(Config{}, Options{})
	statuses, errs := callConcurrently(k, k.mcpClient(a), concurrentCalls)
	requireAllOK(t, statuses, errs)
	authReqs, tokenReqs, regs := k.Snapshot()
	assert.Len(t, authReqs, 1)
	assert.Len(t, tokenReqs, 1)
	assert.Len(t, regs, 1)
	_, as := k.Hits()
	assert.Equal(t, 1, countPath(as, wellKnownAS), "one metadata fetch")
	assert.EqualValues(t, concurrentCalls, k.Served())
}

// seedRecord puts a token the test AS knows (valid or revoked) with a
// valid refresh token into a store, as a previous process would have.
func seedRecord(t *testing.T, k *kit, store TokenStore, a *Authorizer, access string, accessValid bool, expiry time.Time) {
	if accessValid {
		k.AddAccessToken(access)
	}
	k.AddRefreshToken("rt-seed-secretvalue")
	rec := &Record{Resource: k.ServerURL(), Issuer: k.Issuer(), ClientID: "seed-client",
		Token: &oauth2.Token{AccessToken: access, TokenType: "Bearer", RefreshToken: "rt-seed-secretvalue", Expiry: expiry}}
	require.NoError(t, store.Save(context.Background(), a.impl.storeKey, rec))
}

// TestSingleFlightProactiveRefresh: a stored token inside its refresh
// window is refreshed exactly once while 200 concurrent requests all
// succeed.
func TestSingleFlightProactiveRefresh(t *testing.T) {
	k := newKit(t, kitConfig{RefreshTokens: true, PreClients: map[string]string{"seed-client": "seed-secretvalue"}})
	store := NewMemoryStore()
	a := k.authorizer(Config{ClientID: "seed-client", ClientSecret: "seed-secretvalue"},
		Options{Store: store, RefreshBefore: 30 * time.Minute}) // the seed is inside it, the refreshed token (1h) is not
	seedRecord(t, k, store, a, "at-seed-secretvalue", true, time.Now().Add(10*time.Minute))

	statuses, errs := callConcurrently(k, k.mcpClient(a), concurrentCalls)
	requireAllOK(t, statuses, errs)
	assert.Equal(t, 1, k.TokenRequests("refresh_token"), "exactly one refresh")
	authReqs, tokenReqs, _ := k.Snapshot()
	assert.Empty(t, authReqs)
	assert.Len(t, tokenReqs, 1)
	assert.Equal(t, k.ServerURL(), tokenReqs[0].Form.Get("resource"), "the refresh names the resource")

	rec, err := store.Load(context.Background(), a.impl.storeKey)
	require.NoError(t, err)
	assert.NotEqual(t, "at-seed-secretvalue", rec.Token.AccessToken, "the refreshed token is stored")
}

// TestSingleFlightRefreshOnInvalidToken: the server revoked the token all
// 200 requests send; they share one refresh and all succeed.
func TestSingleFlightRefreshOnInvalidToken(t *testing.T) {
	k := newKit(t, kitConfig{RefreshTokens: true, PRMInHeader: true, PreClients: map[string]string{"seed-client": "seed-secretvalue"}})
	store := NewMemoryStore()
	a := k.authorizer(Config{ClientID: "seed-client", ClientSecret: "seed-secretvalue"}, Options{Store: store})
	seedRecord(t, k, store, a, "at-revoked-secretvalue", false, time.Now().Add(time.Hour))

	statuses, errs := callConcurrently(k, k.mcpClient(a), concurrentCalls)
	requireAllOK(t, statuses, errs)
	assert.Equal(t, 1, k.TokenRequests("refresh_token"), "exactly one refresh")
	authReqs, _, _ := k.Snapshot()
	assert.Empty(t, authReqs, "a refresh, not a new authorization")
}

// TestRefreshRefusedFallsBackToGrant: a refresh token the server no longer
// knows leads to a new authorization.
func TestRefreshRefusedFallsBackToGrant(t *testing.T) {
	k := newKit(t, kitConfig{RefreshTokens: true, PreClients: map[string]string{"seed-client": "seed-secretvalue"}})
	store := NewMemoryStore()
	a := k.authorizer(Config{ClientID: "seed-client", ClientSecret: "seed-secretvalue"}, Options{Store: store})
	seedRecord(t, k, store, a, "at-revoked-secretvalue", false, time.Now().Add(time.Hour))
	k.RevokeRefreshToken("rt-seed-secretvalue")
	status, err := k.Call(k.mcpClient(a), "tools/list")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, status)
	authReqs, _, _ := k.Snapshot()
	assert.Len(t, authReqs, 1)
	assert.Equal(t, 1, k.TokenRequests("refresh_token"))
}

func countPath(paths []string, p string) int {
	n := 0
	for _, x := range paths {
		if x == p {
			n++
		}
	}
	return n
}

// TestRefreshedTokenRefusedRunsGrantOnce: a server that refuses every
// token gets one refresh, then one authorization, then a permanent
// error, not a refresh loop.
func TestRefreshedTokenRefusedRunsGrantOnce(t *testing.T) {
	k := newKit(t, kitConfig{RefreshTokens: true, RejectAllTokens: true, PreClients: map[string]string{"seed-client": "seed-secretvalue"}})
	store := NewMemoryStore()
	a := k.authorizer(Config{ClientID: "seed-client", ClientSecret: "seed-secretvalue"}, Options{Store: store})
	seedRecord(t, k, store, a, "at-seed-secretvalue", true, time.Now().Add(time.Hour))
	_, err := k.Call(k.mcpClient(a), "tools/list")
	require.ErrorIs(t, err, ErrUnauthorized)
	assert.Contains(t, err.Error(), "token revoked by policy")
	assert.Equal(t, 1, k.TokenRequests("refresh_token"))
	authReqs, _, _ := k.Snapshot()
	assert.Len(t, authReqs, 1)
}
