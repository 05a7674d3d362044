package oauth

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDynamicRegistrationIsKept(t *testing.T) {
	k := newKit(t, kitConfig{AuthMethods: []string{authNone}})
	store := NewMemoryStore()
	a := k.authorizer(Config{ClientName: "my-engine"}, Options{Store: store})
	status, err := k.Call(k.mcpClient(a), "initialize")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)

	_, _, regs := k.Snapshot()
	require.Len(t, regs, 1)
	reg := regs[0]
	assert.Equal(t, "my-engine", reg["client_name"])
	assert.Equal(t, []any{testRedirectURI}, reg["redirect_uris"])
	assert.ElementsMatch(t, []any{"authorization_code", "refresh_token"}, reg["grant_types"])
	assert.Equal(t, authNone, reg["token_endpoint_auth_method"])
	assert.Equal(t, "native", reg["application_type"], "a loopback redirect is a native application's")

	// A second Authorizer (another process) with the same store reuses the
	// registration instead of registering again.
	b := k.authorizer(Config{ClientName: "my-engine"}, Options{Store: store})
	require.NoError(t, b.Login(context.Background()))
	authReqs, _, regs := k.Snapshot()
	assert.Len(t, regs, 1, "the stored registration is reused")
	require.Len(t, authReqs, 2)
	assert.Equal(t, authReqs[0].Get("client_id"), authReqs[1].Get("client_id"))
}

func TestClientIDMetadataDocument(t *testing.T) {
	const cimdURL = "https://conformance-test.local/client-metadata.json"
	t.Run("used when the server supports it", func(t *testing.T) {
		k := newKit(t, kitConfig{CIMD: true, AuthMethods: []string{authNone}})
		a := k.authorizer(Config{ClientMetadataURL: cimdURL}, Options{})
		status, err := k.Call(k.mcpClient(a), "initialize")
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, status)
		authReqs, tokenReqs, regs := k.Snapshot()
		assert.Empty(t, regs, "no dynamic registration")
		require.Len(t, authReqs, 1)
		assert.Equal(t, cimdURL, authReqs[0].Get("client_id"))
		require.Len(t, tokenReqs, 1)
		assert.Equal(t, authNone, tokenReqs[0].AuthMethod)
	})
	t.Run("dynamic registration when it does not", func(t *testing.T) {
		k := newKit(t, kitConfig{AuthMethods: []string{authNone}})
		a := k.authorizer(Config{ClientMetadataURL: cimdURL}, Options{})
		status, err := k.Call(k.mcpClient(a), "initialize")
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, status)
		authReqs, _, regs := k.Snapshot()
		assert.Len(t, regs, 1)
		assert.NotEqual(t, cimdURL, authReqs[0].Get("client_id"))
	})
}

func TestPreRegisteredClient(t *testing.T) {
	k := newKit(t, kitConfig{NoRegistration: true, AuthMethods: []string{authSecretBasic},
		PreClients: map[string]string{"pre-registered-client": "pre-registered-secretvalue"}})
	a := k.authorizer(Config{ClientID: "pre-registered-client", ClientSecret: "pre-registered-secretvalue"}, Options{})
	status, err := k.Call(k.mcpClient(a), "initialize")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	authReqs, tokenReqs, regs := k.Snapshot()
	assert.Empty(t, regs)
	assert.Equal(t, "pre-registered-client", authReqs[0].Get("client_id"))
	require.Len(t, tokenReqs, 1)
	assert.Equal(t, authSecretBasic, tokenReqs[0].AuthMethod)
	assert.Equal(t, "pre-registered-client", tokenReqs[0].ClientID)
}

func TestNoRegistrationNoClientIDFails(t *testing.T) {
	k := newKit(t, kitConfig{NoRegistration: true})
	a := k.authorizer(Config{}, Options{})
	_, err := k.Call(k.mcpClient(a), "initialize")
	require.ErrorIs(t, err, ErrUnauthorized)
	assert.Contains(t, err.Error(), "no dynamic client registration")
}

// TestTokenEndpointAuthMethods: a dynamically registered client uses the
// one method the server supports, and the server sees that method.
func TestTokenEndpointAuthMethods(t *testing.T) {
	for _, method := range []string{authSecretBasic, authSecretPost, authNone} {
		t.Run(method, func(t *testing.T) {
			k := newKit(t, kitConfig{AuthMethods: []string{method}, GrantMethod: method})
			a := k.authorizer(Config{}, Options{})
			status, err := k.Call(k.mcpClient(a), "initialize")
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, status)
			_, tokenReqs, regs := k.Snapshot()
			require.Len(t, regs, 1)
			assert.Equal(t, method, regs[0]["token_endpoint_auth_method"])
			require.Len(t, tokenReqs, 1)
			assert.Equal(t, method, tokenReqs[0].AuthMethod)
			if method != authSecretPost {
				assert.Empty(t, tokenReqs[0].Form.Get("client_secret"), "no secret in the body")
			}
		})
	}
	t.Run("configured post with a pre-registered client", func(t *testing.T) {
		k := newKit(t, kitConfig{NoRegistration: true, PreClients: map[string]string{"c": "s-secretvalue"}})
		a := k.authorizer(Config{ClientID: "c", ClientSecret: "s-secretvalue", TokenEndpointAuthMethod: authSecretPost}, Options{})
		status, err := k.Call(k.mcpClient(a), "initialize")
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, status)
		_, tokenReqs, _ := k.Snapshot()
		assert.Equal(t, authSecretPost, tokenReqs[0].AuthMethod)
	})
}

func TestChooseAuthMethod(t *testing.T) {
	assert.Equal(t, authSecretBasic, chooseAuthMethod("", nil, true, false))
	assert.Equal(t, authSecretPost, chooseAuthMethod("", []string{authSecretPost, authNone}, true, false))
	assert.Equal(t, authSecretBasic, chooseAuthMethod("", []string{authSecretPost, authSecretBasic}, true, false))
	assert.Equal(t, authNone, chooseAuthMethod("", []string{authSecretBasic}, false, false))
	assert.Equal(t, authPrivateKeyJWT, chooseAuthMethod("", nil, true, true))
	assert.Equal(t, authSecretPost, chooseAuthMethod(authSecretPost, []string{authSecretBasic}, true, false))
}
