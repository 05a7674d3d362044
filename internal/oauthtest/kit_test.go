package oauthtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests drive the kit by hand, as a client would, so that the
// engine-level tests can trust its knobs and counters.

// token runs a client_credentials grant for a pre-registered client and
// returns the access and refresh tokens.
func token(t *testing.T, k *Kit) (access, refresh string) {
	t.Helper()
	form := url.Values{"grant_type": {GrantClientCredentials}, "client_id": {"c"}, "client_secret": {"s-" + SecretMarker}}
	return postToken(t, k, form)
}

func postToken(t *testing.T, k *Kit, form url.Values) (access, refresh string) {
	t.Helper()
	resp, err := k.Client().PostForm(k.Issuer()+"/token", form)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var body struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	return body.AccessToken, body.RefreshToken
}

func get(t *testing.T, k *Kit, path, tok string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, k.ResourceOrigin()+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	require.NoError(t, err)
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := k.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestResourceIsGuardedByTheBearerCheck(t *testing.T) {
	var got string
	k := New(t, Config{PreClients: map[string]string{"c": "s-" + SecretMarker}, PRMInHeader: true,
		Resource: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			got = r.URL.Path + " " + string(b)
			w.WriteHeader(http.StatusTeapot)
		})})
	resp, _ := get(t, k, "/anything", "")
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("WWW-Authenticate"), `resource_metadata="`+k.ResourceOrigin()+WellKnownPRM+`/mcp"`)
	assert.Empty(t, got, "an unauthorized request never reaches the resource")

	access, _ := token(t, k)
	resp, _ = get(t, k, "/anything", access)
	assert.Equal(t, http.StatusTeapot, resp.StatusCode)
	assert.Equal(t, `/anything {"jsonrpc":"2.0","id":1,"method":"tools/list"}`, got, "the body reaches the resource intact")
	assert.Equal(t, 1, k.Served())
	assert.Equal(t, 1, k.TokenRequests(GrantClientCredentials))
	assert.Equal(t, 0, k.TokenRequests(GrantRefreshToken))
	assert.Equal(t, 1, k.TokenRequests(""))

	k.SetRejectAllTokens(true)
	resp, _ = get(t, k, "/anything", access)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("WWW-Authenticate"), RejectedDescription)
	assert.Equal(t, 1, k.Refused())
}

func TestRevokeThenRefreshHeldUntilRefused(t *testing.T) {
	k := New(t, Config{RefreshTokens: true, PreClients: map[string]string{"c": "s-" + SecretMarker}})
	access, refresh := token(t, k)
	assert.Equal(t, 1, k.RevokeAccessTokens())
	resp, _ := get(t, k, "/mcp", access)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	const n = 3
	k.HoldRefreshes(n)
	refreshed := make(chan string, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	// Exits when the held refresh is answered.
	go func() {
		defer wg.Done()
		a, _ := postToken(t, k, url.Values{"grant_type": {GrantRefreshToken}, "refresh_token": {refresh},
			"client_id": {"c"}, "client_secret": {"s-" + SecretMarker}})
		refreshed <- a
	}()
	for i := range n {
		select {
		case <-refreshed:
			t.Fatalf("the refresh was answered after %d of %d refusals", i, n)
		default:
		}
		resp, _ := get(t, k, "/mcp", access)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	}
	wg.Wait()
	fresh := <-refreshed
	resp, _ = get(t, k, "/mcp", fresh)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, 1+n, k.Refused())
	assert.Equal(t, 1, k.TokenRequests(GrantRefreshToken))
}

func TestLeakedNamesTheKindNotTheSecret(t *testing.T) {
	k := New(t, Config{PreClients: map[string]string{"c": "s-" + SecretMarker}})
	access, _ := token(t, k)
	_, leaked := k.Leaked("nothing here")
	assert.False(t, leaked)
	_, leaked = k.Leaked("a prefix is not the token: " + strings.TrimSuffix(access, SecretMarker))
	assert.False(t, leaked)
	kind, leaked := k.Leaked("x " + access + " y")
	assert.True(t, leaked)
	assert.NotContains(t, kind, access)
	assert.Contains(t, k.Secrets(), access)
	assert.Contains(t, k.Secrets(), "s-"+SecretMarker)
}
