package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPKCEVerifiedByServer: the test AS recomputes S256(code_verifier)
// and compares it with the code_challenge of the authorization request;
// a success means PKCE S256 was done right.
func TestPKCEVerifiedByServer(t *testing.T) {
	k := newKit(t, kitConfig{})
	a := k.authorizer(Config{}, Options{})
	status, err := k.Call(k.mcpClient(a), "initialize")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	authReqs, tokenReqs, _ := k.Snapshot()
	assert.Equal(t, "S256", authReqs[0].Get("code_challenge_method"))
	assert.NotEmpty(t, authReqs[0].Get("state"))
	assert.NotEmpty(t, tokenReqs[0].Form.Get("code_verifier"))
	assert.NotContains(t, authReqs[0], "code_verifier")
}

func TestS256NotAdvertisedRefused(t *testing.T) {
	k := newKit(t, kitConfig{OmitPKCE: true})
	a := k.authorizer(Config{}, Options{})
	_, err := k.Call(k.mcpClient(a), "initialize")
	var ue *UnauthorizedError
	require.True(t, errors.As(err, &ue), "error: %v", err)
	assert.Contains(t, ue.Reason, "S256")
	authReqs, _, _ := k.Snapshot()
	assert.Empty(t, authReqs, "no authorization request without PKCE support")
}

func TestStateMismatchRefused(t *testing.T) {
	k := newKit(t, kitConfig{WrongState: true})
	a := k.authorizer(Config{}, Options{})
	_, err := k.Call(k.mcpClient(a), "initialize")
	require.ErrorIs(t, err, ErrUnauthorized)
	assert.Contains(t, err.Error(), "state")
	_, tokenReqs, _ := k.Snapshot()
	assert.Empty(t, tokenReqs, "the code of a forged response is never exchanged")
}

func TestAuthorizationDenied(t *testing.T) {
	k := newKit(t, kitConfig{AuthError: "access_denied"})
	a := k.authorizer(Config{}, Options{})
	_, err := k.Call(k.mcpClient(a), "initialize")
	var ue *UnauthorizedError
	require.True(t, errors.As(err, &ue), "error: %v", err)
	assert.Equal(t, "access_denied", ue.Code)
	assert.Equal(t, "the user said no", ue.Description)
}

func TestLoginRequiredWithoutUserAgent(t *testing.T) {
	k := newKit(t, kitConfig{})
	a, err := New(k.ServerURL(), Config{}, Options{HTTPClient: k.Client()})
	require.NoError(t, err)
	_, err = k.Call(k.mcpClient(a), "initialize")
	require.ErrorIs(t, err, ErrUnauthorized)
	require.ErrorIs(t, err, ErrLoginRequired)
}

func TestScopeSelection(t *testing.T) {
	tests := []struct {
		name string
		cfg  kitConfig
		conf Config
		want string // the scope parameter ("" = omitted)
	}{
		{"from the challenge", kitConfig{ChallengeScope: []string{"mcp:basic"}, PRMScopes: []string{"mcp:basic", "mcp:other"}}, Config{}, "mcp:basic"},
		{"from scopes_supported", kitConfig{PRMScopes: []string{"mcp:basic", "mcp:read", "mcp:write"}}, Config{}, "mcp:basic mcp:read mcp:write"},
		{"omitted when undefined", kitConfig{}, Config{}, ""},
		{"offline_access when the AS lists it", kitConfig{PRMScopes: []string{"mcp:basic"}, ScopesSupported: []string{"mcp:basic", "offline_access"}}, Config{}, "mcp:basic offline_access"},
		{"no offline_access when the AS does not", kitConfig{PRMScopes: []string{"mcp:basic", "mcp:read"}, ScopesSupported: []string{"mcp:basic", "mcp:read"}}, Config{}, "mcp:basic mcp:read"},
		{"configured scopes override", kitConfig{ChallengeScope: []string{"mcp:basic"}}, Config{Scopes: []string{"custom"}}, "custom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := newKit(t, tc.cfg)
			a := k.authorizer(tc.conf, Options{})
			status, err := k.Call(k.mcpClient(a), "initialize")
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, status)
			authReqs, _, _ := k.Snapshot()
			require.Len(t, authReqs, 1)
			_, present := authReqs[0]["scope"]
			assert.Equal(t, tc.want != "", present, "scope parameter present")
			assert.Equal(t, tc.want, authReqs[0].Get("scope"))
		})
	}
}

// TestStepUp: a 403 insufficient_scope re-authorizes with the union of
// the scopes held and the challenge's, and the request succeeds.
func TestStepUp(t *testing.T) {
	for _, with401 := range []bool{false, true} {
		t.Run(fmt.Sprintf("401=%v", with401), func(t *testing.T) { testStepUp(t, with401) })
	}
}

func testStepUp(t *testing.T, with401 bool) {
	k := newKit(t, kitConfig{PRMInHeader: true, ChallengeScope: []string{"mcp:basic"}, PRMScopes: []string{"mcp:basic"},
		ScopeWith401: with401,
		NeedScopes: func(method string) []string {
			if method == "tools/call" {
				return []string{"mcp:write"}
			}
			return []string{"mcp:basic"}
		}})
	a := k.authorizer(Config{}, Options{})
	c := k.mcpClient(a)
	status, err := k.Call(c, "tools/list")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	status, err = k.Call(c, "tools/call")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	// Both scopes held now: tools/list still works without a new login.
	status, err = k.Call(c, "tools/list")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)

	authReqs, _, regs := k.Snapshot()
	require.Len(t, authReqs, 2)
	assert.Equal(t, "mcp:basic", authReqs[0].Get("scope"))
	assert.ElementsMatch(t, []string{"mcp:basic", "mcp:write"}, strings.Fields(authReqs[1].Get("scope")))
	assert.Len(t, regs, 1, "a step-up does not register again")
}

func TestStepUpLimit(t *testing.T) {
	for _, max := range []int{0, 1} {
		k := newKit(t, kitConfig{PRMInHeader: true, ChallengeScope: []string{"mcp:admin"}, AlwaysTooLittle: true})
		a := k.authorizer(Config{MaxStepUps: max}, Options{})
		_, err := k.Call(k.mcpClient(a), "tools/list")
		var ue *UnauthorizedError
		require.True(t, errors.As(err, &ue), "error: %v", err)
		assert.Equal(t, http.StatusForbidden, ue.Status)
		assert.Equal(t, "insufficient_scope", ue.Code)
		assert.Equal(t, "Scope upgrade will never succeed", ue.Description)
		want := max
		if want == 0 {
			want = defaultMaxStepUps
		}
		authReqs, _, _ := k.Snapshot()
		assert.Len(t, authReqs, 1+want, "the first authorization and %d step-ups", want)
	}
}

func TestUnauthorizedAfterFreshAuthorization(t *testing.T) {
	k := newKit(t, kitConfig{RejectAllTokens: true, RefreshTokens: true})
	a := k.authorizer(Config{}, Options{})
	_, err := k.Call(k.mcpClient(a), "initialize")
	var ue *UnauthorizedError
	require.True(t, errors.As(err, &ue), "error: %v", err)
	assert.True(t, ue.Permanent())
	assert.Equal(t, http.StatusUnauthorized, ue.Status)
	assert.Equal(t, "invalid_token", ue.Code)
	assert.Equal(t, "token revoked by policy", ue.Description)
	assert.Contains(t, err.Error(), "token revoked by policy")
	authReqs, _, _ := k.Snapshot()
	assert.Len(t, authReqs, 1, "one authorization, not a loop")
}

func TestOtherForbiddenIsPermanent(t *testing.T) {
	k := newKit(t, kitConfig{ForbidAll: true})
	a := k.authorizer(Config{}, Options{})
	_, err := k.Call(k.mcpClient(a), "initialize")
	var ue *UnauthorizedError
	require.True(t, errors.As(err, &ue), "error: %v", err)
	assert.Equal(t, http.StatusForbidden, ue.Status)
	assert.Equal(t, "access_denied", ue.Code)
	assert.Equal(t, "tenant suspended", ue.Description)
	authReqs, _, _ := k.Snapshot()
	assert.Len(t, authReqs, 1, "no re-authorization for a plain 403")
}

func TestLoginTokenLogout(t *testing.T) {
	k := newKit(t, kitConfig{})
	store := NewMemoryStore()
	a := k.authorizer(Config{}, Options{Store: store})
	ctx := context.Background()
	require.NoError(t, a.Login(ctx))
	tok, err := a.Token(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, tok.AccessToken)
	rs, _ := k.Hits()
	assert.Contains(t, rs, "/mcp", "Login probed the server for its challenge")

	// The engine's requests use the token Login stored.
	status, err := k.Call(k.mcpClient(a), "initialize")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	authReqs, _, _ := k.Snapshot()
	assert.Len(t, authReqs, 1)

	require.NoError(t, a.Logout(ctx))
	rec, err := store.Load(ctx, a.impl.storeKey)
	require.NoError(t, err)
	assert.Nil(t, rec)
}

// TestTokenNotSentElsewhere: a request to another origin through the
// same transport carries no token.
func TestTokenNotSentElsewhere(t *testing.T) {
	k := newKit(t, kitConfig{})
	a := k.authorizer(Config{}, Options{})
	c := k.mcpClient(a)
	_, err := k.Call(c, "initialize")
	require.NoError(t, err)
	var got string
	other := newHeaderRecorder(t, &got)
	resp, err := c.Get(other)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Empty(t, got)
}

// TestResponseIssuerChecked: RFC 9207 as the MCP draft asks.
func TestResponseIssuerChecked(t *testing.T) {
	tests := []struct {
		name string
		cfg  kitConfig
		ok   bool
	}{
		{"advertised and right", kitConfig{ISSSupported: true, ISSParam: "right"}, true},
		{"not advertised, right", kitConfig{ISSParam: "right"}, true},
		{"not advertised, absent", kitConfig{}, true},
		{"advertised and absent", kitConfig{ISSSupported: true}, false},
		{"wrong issuer", kitConfig{ISSParam: "https://attacker.example"}, false},
		{"wrong issuer on an error response", kitConfig{ISSParam: "https://attacker.example", AuthError: "access_denied"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := newKit(t, tc.cfg)
			a := k.authorizer(Config{}, Options{})
			status, err := k.Call(k.mcpClient(a), "initialize")
			if tc.ok {
				require.NoError(t, err)
				assert.Equal(t, http.StatusOK, status)
				return
			}
			var ue *UnauthorizedError
			require.True(t, errors.As(err, &ue), "error: %v", err)
			assert.Contains(t, ue.Reason, "RFC 9207")
			assert.Empty(t, ue.Code, "an error response from another issuer is not acted on")
			_, tokenReqs, _ := k.Snapshot()
			assert.Empty(t, tokenReqs)
		})
	}
}

// TestIssuerMismatchRefused: metadata whose issuer is not the one it was
// fetched for is not used (RFC 8414 §3.3).
func TestIssuerMismatchRefused(t *testing.T) {
	for _, issuer := range []string{"https://honest.example", "with-trailing-slash"} {
		k := newKit(t, kitConfig{})
		k.SetMetadataIssuer(issuer)
		if issuer == "with-trailing-slash" {
			k.SetMetadataIssuer(k.Issuer() + "/")
		}
		a := k.authorizer(Config{}, Options{})
		_, err := k.Call(k.mcpClient(a), "initialize")
		var ue *UnauthorizedError
		require.True(t, errors.As(err, &ue), "error: %v", err)
		assert.Contains(t, ue.Reason, "issuer")
		authReqs, _, regs := k.Snapshot()
		assert.Empty(t, authReqs)
		assert.Empty(t, regs)
	}
}
