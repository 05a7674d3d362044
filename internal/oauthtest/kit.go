package oauthtest

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Well-known paths and fixed values of the kit.
const (
	// WellKnownPRM is where RFC 9728 protected resource metadata lives.
	WellKnownPRM = "/.well-known/oauth-protected-resource"
	// WellKnownAS is where RFC 8414 authorization server metadata lives.
	WellKnownAS = "/.well-known/oauth-authorization-server"
	// RedirectURI is a redirect URI for headless agents that read the code
	// from the authorization server's redirect and never connect to it.
	RedirectURI = "http://127.0.0.1:1/callback"
	// RejectedDescription is the error_description of the 401 a refused
	// token gets.
	RejectedDescription = "token revoked by policy"
	// MovedDescription is the error_description of the 401 a token of the
	// authorization server the resource left gets (see MoveTo).
	MovedDescription = "authorization server has changed"
	// SecretMarker is part of every token, secret and code the kit issues.
	SecretMarker = "secretvalue"
)

// Token endpoint auth methods and grant types the kit understands.
const (
	AuthNone          = "none"
	AuthSecretBasic   = "client_secret_basic"
	AuthSecretPost    = "client_secret_post"
	AuthPrivateKeyJWT = "private_key_jwt"

	GrantAuthorizationCode = "authorization_code"
	GrantRefreshToken      = "refresh_token"
	GrantClientCredentials = "client_credentials"
	GrantJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	GrantTokenExchange     = "urn:ietf:params:oauth:grant-type:token-exchange"

	TokenTypeIDToken = "urn:ietf:params:oauth:token-type:id_token"
	TokenTypeIDJAG   = "urn:ietf:params:oauth:token-type:id-jag"

	clientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// Config shapes the servers of one test. The zero value is an
// authorization server with dynamic registration and PKCE S256, a
// resource at ServerURL whose metadata is at the path-aware well-known
// URI, and no refresh tokens.
type Config struct {
	// Resource server.

	// PRMPath is where the protected resource metadata is served: "" the
	// path-aware default, "-" nowhere.
	PRMPath string
	// PRMInHeader puts resource_metadata in the 401 challenge.
	PRMInHeader bool
	// PRMResource overrides the metadata's resource (a mismatch test).
	PRMResource string
	// PRMScopes is the metadata's scopes_supported.
	PRMScopes []string
	// ChallengeScope is the scope of the 401 challenge.
	ChallengeScope []string
	// NeedScopes says which scopes a JSON-RPC method needs; a token
	// without them gets 403 insufficient_scope naming them.
	NeedScopes func(method string) []string
	// AlwaysTooLittle answers every authorized request with 403
	// insufficient_scope (step-up never succeeds).
	AlwaysTooLittle bool
	// ScopeWith401 sends insufficient_scope with a 401 instead of a 403.
	ScopeWith401 bool
	// RejectAllTokens answers every token with 401 invalid_token (see also
	// SetRejectAllTokens).
	RejectAllTokens bool
	// ForbidAll answers every authorized request with a plain 403.
	ForbidAll bool
	// Resource is what the bearer check guards: every path but the
	// metadata reaches it once authorized. nil: a stub at /mcp answering
	// every JSON-RPC request with an empty result. If it has a
	// Close(context.Context) error method, the kit calls it at cleanup
	// before closing its servers, so that open streams end.
	Resource http.Handler

	// Authorization server.

	// ASOnRS serves the authorization server from the resource server's
	// origin (2025-03-26 servers).
	ASOnRS bool
	// ASPrefix is the issuer's path.
	ASPrefix string
	// MetadataPath is where the AS metadata is served: "" RFC 8414 at the
	// issuer's path-inserted URI, "-" nowhere.
	MetadataPath string
	// OpenID adds the OpenID Connect discovery fields.
	OpenID bool
	// ScopesSupported is the AS metadata's scopes_supported.
	ScopesSupported []string
	// OmitPKCE leaves code_challenge_methods_supported out.
	OmitPKCE bool
	// AuthMethods is token_endpoint_auth_methods_supported (nil: omitted).
	AuthMethods []string
	// CIMD advertises Client ID Metadata Document support.
	CIMD bool
	// NoRegistration offers no registration endpoint.
	NoRegistration bool
	// GrantMethod is the token_endpoint_auth_method /register grants (""
	// as asked).
	GrantMethod string
	// NoSecret: /register issues no secret.
	NoSecret bool
	// RefreshTokens issues refresh tokens with access tokens.
	RefreshTokens bool
	// ExpiresIn is the access tokens' lifetime in seconds (0: 3600).
	ExpiresIn int
	// PreClients are pre-registered clients: id → secret.
	PreClients map[string]string
	// JWTClients are clients authenticating with private_key_jwt: id →
	// the key their assertions are verified with.
	JWTClients map[string]*ecdsa.PublicKey
	// WrongState returns another state than the one sent.
	WrongState bool
	// AuthError makes /authorize answer with this error.
	AuthError string
	// ISSSupported advertises authorization_response_iss_parameter_supported.
	ISSSupported bool
	// ISSParam is the iss of the authorization response: "" none, "right"
	// the issuer, anything else that value.
	ISSParam string
	// MetadataIssuer overrides the issuer the metadata names (see also
	// SetMetadataIssuer).
	MetadataIssuer string
}

// TokenRequest is one request the token endpoint (or the identity
// provider's) received.
type TokenRequest struct {
	Form       url.Values
	AuthMethod string // how the client authenticated
	ClientID   string
}

// Kit is the servers of one test; see New. Safe for concurrent use.
type Kit struct {
	t      testing.TB
	cfg    Config
	rs, as *httptest.Server
	idp    *httptest.Server
	client *http.Client

	rejectAll atomic.Bool
	served    atomic.Int64 // requests that reached the resource
	refused   atomic.Int64 // requests whose token was refused
	// refusedPosts counts the POSTs among refused.
	refusedPosts atomic.Int64
	n            atomic.Int64

	idpKey  *ecdsa.PrivateKey // signs ID-JAGs
	idpJAGs atomic.Int32

	// serial tells this kit's client ids and secrets from another kit's,
	// so that a test with two authorization servers sees whose a client
	// sent.
	serial int64

	mu             sync.Mutex
	metadataIssuer string
	rsHits         []string // paths requested from the resource server
	asHits         []string // paths requested from the authorization server
	authRequests   []url.Values
	tokenRequests  []TokenRequest
	registrations  []map[string]any
	idpRequests    []TokenRequest
	clients        map[string]dynClient
	codes          map[string]codeGrant
	tokens         map[string][]string // valid access token → scopes
	refresh        map[string][]string // valid refresh token → scopes
	secrets        []secret            // every secret issued or received
	hold           *refreshHold
	// movedTo is the kit whose authorization server the resource now
	// names (MoveTo); nil: its own.
	movedTo *Kit
}

// kits numbers the kits of the process (Kit.serial).
var kits atomic.Int64

type dynClient struct{ secret, method, redirect string }

type codeGrant struct {
	challenge, method, clientID, redirectURI, resource string
	scopes                                             []string
}

// New starts the servers of cfg, closed when the test ends.
func New(t testing.TB, cfg Config) *Kit {
	t.Helper()
	tr := &http.Transport{}
	k := &Kit{t: t, cfg: cfg, client: &http.Client{Transport: tr},
		metadataIssuer: cfg.MetadataIssuer, serial: kits.Add(1),
		clients: map[string]dynClient{}, codes: map[string]codeGrant{},
		tokens: map[string][]string{}, refresh: map[string][]string{}}
	k.rejectAll.Store(cfg.RejectAllTokens)
	for _, s := range cfg.PreClients {
		k.secrets = append(k.secrets, secret{"client secret", s})
	}
	// Both servers exist before either serves: their handlers read each
	// other's URLs.
	k.rs = httptest.NewUnstartedServer(http.HandlerFunc(k.serveRS))
	k.as = k.rs
	if !cfg.ASOnRS {
		k.as = httptest.NewUnstartedServer(http.HandlerFunc(k.serveAS))
		k.as.Start()
	}
	k.rs.Start()
	t.Cleanup(k.close)
	return k
}

func (k *Kit) close() {
	if c, ok := k.cfg.Resource.(interface{ Close(context.Context) error }); ok {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = c.Close(ctx)
		cancel()
	}
	k.client.CloseIdleConnections()
	k.rs.Close()
	if !k.cfg.ASOnRS {
		k.as.Close()
	}
	if k.idp != nil {
		k.idp.Close()
	}
}

// ServerURL is the MCP server's URL: the protected resource.
func (k *Kit) ServerURL() string { return k.rs.URL + "/mcp" }

// ResourceOrigin is the resource server's origin (scheme://host:port).
func (k *Kit) ResourceOrigin() string { return k.rs.URL }

// AuthOrigin is the authorization server's origin.
func (k *Kit) AuthOrigin() string { return k.as.URL }

// Issuer is the authorization server's issuer identifier.
func (k *Kit) Issuer() string { return k.as.URL + k.cfg.ASPrefix }

// Client is a plain HTTP client for the kit's servers, its idle
// connections closed when the test ends.
func (k *Kit) Client() *http.Client { return k.client }

func (k *Kit) next() int64 { return k.n.Add(1) }

// secret is one secret the kit saw, and what it is (for messages that
// must not show it).
type secret struct{ kind, value string }

// secretLocked returns a fresh secret value, prefix-K-N-SecretMarker
// (K the kit's serial: no other kit issues it), and remembers it. Callers hold k.mu.
func (k *Kit) secretLocked(prefix, kind string) string {
	s := fmt.Sprintf("%s-%d-%d-%s", prefix, k.serial, k.next(), SecretMarker)
	k.secrets = append(k.secrets, secret{kind, s})
	return s
}

// noteSecretsLocked remembers secrets received. Callers hold k.mu.
func (k *Kit) noteSecretsLocked(kind string, values ...string) {
	for _, v := range values {
		if v != "" {
			k.secrets = append(k.secrets, secret{kind, v})
		}
	}
}
