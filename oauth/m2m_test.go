package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClientCredentialsSecret(t *testing.T) {
	for _, method := range []string{authSecretBasic, authSecretPost} {
		t.Run(method, func(t *testing.T) {
			k := newKit(t, kitConfig{AuthMethods: []string{method},
				PreClients: map[string]string{"conformance-test-client": "conformance-test-secretvalue"}})
			a := k.authorizer(Config{Grant: GrantClientCredentials, ClientID: "conformance-test-client",
				ClientSecret: "conformance-test-secretvalue"}, Options{})
			status, err := k.Call(k.mcpClient(a), "initialize")
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, status)
			authReqs, tokenReqs, regs := k.Snapshot()
			assert.Empty(t, authReqs)
			assert.Empty(t, regs)
			require.Len(t, tokenReqs, 1)
			assert.Equal(t, "client_credentials", tokenReqs[0].Form.Get("grant_type"))
			assert.Equal(t, method, tokenReqs[0].AuthMethod)
			assert.Equal(t, k.ServerURL(), tokenReqs[0].Form.Get("resource"))
		})
	}
}

func TestClientCredentialsPrivateKeyJWT(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	pemText := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))

	k := newKit(t, kitConfig{AuthMethods: []string{authPrivateKeyJWT},
		JWTClients: map[string]*ecdsa.PublicKey{"conformance-test-client": &key.PublicKey}})
	a := k.authorizer(Config{Grant: GrantClientCredentials, ClientID: "conformance-test-client",
		PrivateKeyPEM: pemText, SigningAlgorithm: "ES256"}, Options{})
	status, err := k.Call(k.mcpClient(a), "initialize")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	_, tokenReqs, _ := k.Snapshot()
	require.Len(t, tokenReqs, 1)
	// The kit verified the signature with the public key, iss == sub ==
	// client id and aud == the issuer.
	assert.Equal(t, authPrivateKeyJWT, tokenReqs[0].AuthMethod)
	assert.Equal(t, "conformance-test-client", tokenReqs[0].ClientID)
	assert.Equal(t, clientAssertionType, tokenReqs[0].Form.Get("client_assertion_type"))

	t.Run("a wrong key is refused", func(t *testing.T) {
		other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		der, err := x509.MarshalPKCS8PrivateKey(other)
		require.NoError(t, err)
		k := newKit(t, kitConfig{AuthMethods: []string{authPrivateKeyJWT},
			JWTClients: map[string]*ecdsa.PublicKey{"conformance-test-client": &key.PublicKey}})
		a := k.authorizer(Config{Grant: GrantClientCredentials, ClientID: "conformance-test-client",
			PrivateKeyPEM: string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))}, Options{})
		_, err = k.Call(k.mcpClient(a), "initialize")
		require.ErrorIs(t, err, ErrUnauthorized)
		assert.Contains(t, err.Error(), "invalid_client")
	})
}

func TestParseAssertionKey(t *testing.T) {
	_, err := parseAssertionKey("not a key", "", "")
	require.Error(t, err)
	key, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	require.NoError(t, err)
	sec1, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	k, err := parseAssertionKey(string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1})), "", "kid-1")
	require.NoError(t, err)
	assert.Equal(t, "ES384", k.method.Alg())
	_, err = parseAssertionKey(string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1})), "XX999", "")
	require.Error(t, err)
}

func TestCrossAppAccess(t *testing.T) {
	idpKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	k := newKit(t, kitConfig{AuthMethods: []string{authSecretBasic},
		PreClients: map[string]string{"xaa-client": "xaa-secretvalue"}})
	k.StartIDP(idpKey, "idp-client", "id-token-secretvalue")
	a := k.authorizer(Config{Grant: GrantCrossAppAccess, ClientID: "xaa-client", ClientSecret: "xaa-secretvalue",
		IDP: &IDPConfig{Issuer: k.IDPURL(), TokenEndpoint: k.IDPURL() + "/token", ClientID: "idp-client", IDToken: "id-token-secretvalue"}}, Options{})
	status, err := k.Call(k.mcpClient(a), "initialize")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)

	assert.EqualValues(t, 1, k.IDPJAGs(), "one ID-JAG issued")
	idpReqs := k.IDPRequests()
	require.Len(t, idpReqs, 1)
	f := idpReqs[0].Form
	assert.Equal(t, grantTypeTokenExchange, f.Get("grant_type"))
	assert.Equal(t, tokenTypeIDJAG, f.Get("requested_token_type"))
	assert.Equal(t, tokenTypeIDToken, f.Get("subject_token_type"))
	assert.Equal(t, k.Issuer(), f.Get("audience"))
	assert.Equal(t, k.ServerURL(), f.Get("resource"))

	_, tokenReqs, _ := k.Snapshot()
	require.Len(t, tokenReqs, 1)
	assert.Equal(t, grantTypeJWTBearer, tokenReqs[0].Form.Get("grant_type"))
	assert.Equal(t, authSecretBasic, tokenReqs[0].AuthMethod)
	assert.Equal(t, "xaa-client", tokenReqs[0].ClientID)
}

// TestClientCredentialsDynamicClient: without a configured client, a
// client_credentials client registers itself for that grant.
func TestClientCredentialsDynamicClient(t *testing.T) {
	k := newKit(t, kitConfig{AuthMethods: []string{authSecretBasic}})
	a := k.authorizer(Config{Grant: GrantClientCredentials}, Options{})
	status, err := k.Call(k.mcpClient(a), "initialize")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	_, tokenReqs, regs := k.Snapshot()
	require.Len(t, regs, 1)
	assert.Equal(t, []any{"client_credentials"}, regs[0]["grant_types"])
	assert.NotContains(t, regs[0], "redirect_uris")
	require.Len(t, tokenReqs, 1)
	assert.Equal(t, authSecretBasic, tokenReqs[0].AuthMethod)
}

func TestNewValidatesConfig(t *testing.T) {
	for name, tc := range map[string]struct {
		url string
		cfg Config
	}{
		"relative URL":          {"/mcp", Config{}},
		"unknown grant":         {"https://h/mcp", Config{Grant: "password"}},
		"cross-app without idp": {"https://h/mcp", Config{Grant: GrantCrossAppAccess, ClientID: "c"}},
		"unknown auth method":   {"https://h/mcp", Config{TokenEndpointAuthMethod: "tls_client_auth"}},
		"bad key":               {"https://h/mcp", Config{PrivateKeyPEM: "nope"}},
	} {
		_, err := New(tc.url, tc.cfg, Options{})
		assert.Error(t, err, name)
	}
}
