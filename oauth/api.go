// Package oauth authorizes an MCP client to servers that require OAuth 2.1,
// as the MCP authorization specification describes (2025-03-26 through
// 2026-07-28): discovery from a 401 challenge (RFC 9728 protected resource
// metadata, RFC 8414 / OpenID Connect authorization server metadata, the
// 2025-03-26 fallbacks), client identity (pre-registered, Client ID Metadata
// Documents, RFC 7591 dynamic registration), the authorization code grant
// with PKCE S256 and RFC 8707 resource indicators, scope step-up, and the
// machine-to-machine grants (client credentials, cross-app access).
//
// One Authorizer serves every session of an engine that talks to the same
// server in the same authorization context for the same subject (the user
// it acts for, if any): one discovery, one user-agent round trip and one
// refresh at a time for all of them.
//
// Tokens are stored under a key that names the server (its canonical URL),
// the authorization context (grant, client identity, identity provider)
// and the subject; see storeKey. Tokens, secrets, codes and verifiers never
// appear in errors or logs, and Record and Config print redacted.
package oauth

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"golang.org/x/oauth2"
)

// Grant types an Authorizer can use to obtain tokens.
const (
	// GrantAuthorizationCode is the interactive flow (a UserAgent is needed
	// unless a stored token can be refreshed). The default.
	GrantAuthorizationCode = "authorization_code"
	// GrantClientCredentials is the machine-to-machine flow: the client
	// authenticates with its secret or a private_key_jwt assertion.
	GrantClientCredentials = "client_credentials"
	// GrantCrossAppAccess exchanges an identity provider's ID token for an
	// ID-JAG (RFC 8693) and that for an access token (RFC 7523 JWT bearer).
	GrantCrossAppAccess = "cross_app_access"
)

// Config says how the client identifies itself to one server's
// authorization server and which grant it uses. The zero value uses the
// authorization code grant with dynamic client registration. It is the
// "auth": {"oauth": {...}} object of an mcpServers file.
type Config struct {
	// ClientID and ClientSecret are pre-registered credentials. Empty
	// ClientID means: use ClientMetadataURL where the authorization server
	// supports Client ID Metadata Documents, else dynamic registration.
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
	// ClientMetadataURL is the https URL of this client's Client ID
	// Metadata Document, used as its client_id where supported.
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
	// ClientName is sent in dynamic registration (default "mcpengine").
	ClientName string `json:"clientName,omitempty"`
	// TokenEndpointAuthMethod is one of none, client_secret_basic,
	// client_secret_post, private_key_jwt; empty picks from what the
	// server supports and what credentials there are.
	TokenEndpointAuthMethod string `json:"tokenEndpointAuthMethod,omitempty"`
	// PrivateKeyPEM signs private_key_jwt client assertions (PKCS#8, EC or
	// RSA), with SigningAlgorithm (ES256, RS256, ...) and optional KeyID.
	PrivateKeyPEM    string `json:"privateKeyPem,omitempty"`
	SigningAlgorithm string `json:"signingAlgorithm,omitempty"`
	KeyID            string `json:"keyId,omitempty"`
	// Scopes, when set, replace the scopes discovery would select.
	Scopes []string `json:"scopes,omitempty"`
	// Grant is one of the Grant* constants; empty means authorization code.
	Grant string `json:"grant,omitempty"`
	// IDP configures the identity provider of the cross-app access grant.
	IDP *IDPConfig `json:"idp,omitempty"`
	// RedirectPort is the loopback port of the redirect listener of
	// interactive logins (0: any free port).
	RedirectPort int `json:"redirectPort,omitempty"`
	// MaxStepUps bounds re-authorizations for insufficient_scope answers
	// to one request (default 2).
	MaxStepUps int `json:"maxStepUps,omitempty"`
}

// IDPConfig is the enterprise identity provider of the cross-app access
// grant: its token endpoint, the client's credentials there, and the ID
// token of the signed-in user.
type IDPConfig struct {
	Issuer        string `json:"issuer,omitempty"`
	TokenEndpoint string `json:"tokenEndpoint,omitempty"`
	ClientID      string `json:"clientId,omitempty"`
	ClientSecret  string `json:"clientSecret,omitempty"`
	IDToken       string `json:"idToken,omitempty"`
}

// Options are what an Authorizer uses beside its Config.
type Options struct {
	// HTTPClient sends discovery, registration and token requests; nil
	// means http.DefaultClient.
	HTTPClient *http.Client
	// Store keeps tokens and registrations; nil means a MemoryStore.
	Store TokenStore
	// UserAgent runs the interactive step of the authorization code grant;
	// nil means such a step fails with ErrUnauthorized (ErrLoginRequired).
	UserAgent UserAgent
	// Logger receives debug logs; never tokens or secrets. nil: silent.
	Logger *slog.Logger
	// RefreshBefore is how long before expiry a token is refreshed
	// (default 30s).
	RefreshBefore time.Duration
	// Subject is the user this Authorizer acts for: an opaque string the
	// embedder chooses (its own user id). It is part of the store key, so
	// each subject has its own record, and the UserAgent reads it from the
	// context of RedirectURI and Authorize (SubjectFromContext) to know
	// whose sign-in it runs. Empty: the client acts as itself, under the
	// key records had before subjects existed.
	Subject string
}

// Authorizer holds the authorization of one server for every session that
// talks to it. Safe for concurrent use.
type Authorizer struct {
	impl *authorizer
}

// New returns the Authorizer of the MCP server at serverURL. It makes no
// request until a token is needed.
func New(serverURL string, cfg Config, opts Options) (*Authorizer, error) {
	a, err := newAuthorizer(serverURL, cfg, opts)
	if err != nil {
		return nil, err
	}
	return &Authorizer{impl: a}, nil
}

// Transport wraps base (nil: http.DefaultTransport) so that every request
// carries the current access token; a 401 runs discovery and
// authorization once (shared by all requests waiting on it) and retries the
// request, a 403 insufficient_scope re-authorizes with the union of scopes
// and retries (at most MaxStepUps times). A request that authorization
// cannot cure fails with an *UnauthorizedError.
func (a *Authorizer) Transport(base http.RoundTripper) http.RoundTripper {
	return a.impl.transport(base)
}

// Token returns a valid access token, from the store, by refresh, or by
// running the configured grant (one at a time for all callers).
func (a *Authorizer) Token(ctx context.Context) (*oauth2.Token, error) {
	return a.impl.token(ctx)
}

// Login discovers the server's authorization server (sending an
// unauthenticated request to the server to read its challenge when
// needed) and runs the configured grant now, storing the token.
func (a *Authorizer) Login(ctx context.Context) error { return a.impl.login(ctx) }

// Logout forgets the stored token (and registration) of this server for
// this Authorizer's subject; other subjects' records are untouched.
func (a *Authorizer) Logout(ctx context.Context) error { return a.impl.logout(ctx) }

// Subject is the user this Authorizer acts for ("" for none).
func (a *Authorizer) Subject() string { return a.impl.subject }

// UserAgent runs the user-facing step of the authorization code grant: it
// sends the user to the authorization URL and returns the query of the
// redirect back to its redirect URI. Embedders plug their own (a web app's
// redirect, a device-style prompt). The contexts it is given carry the
// subject the sign-in is for (SubjectFromContext): a web application
// redirects that user's browser.
type UserAgent interface {
	// RedirectURI is where the authorization server sends the user back;
	// it is registered with the server and sent in the authorization and
	// token requests.
	RedirectURI(ctx context.Context) (string, error)
	// Authorize sends the user to authURL and waits for the redirect,
	// returning its query parameters (code and state, or error).
	Authorize(ctx context.Context, authURL string) (url.Values, error)
}

// TokenStore keeps what an Authorizer obtained, keyed by server,
// authorization context and subject, so that later processes reuse it.
// Keys of the empty subject are those of releases before subjects, so
// records stored then stay readable.
type TokenStore interface {
	Load(ctx context.Context, key string) (*Record, error) // (nil, nil) when absent
	Save(ctx context.Context, key string, rec *Record) error
	Delete(ctx context.Context, key string) error
}

// Record is one stored authorization: the token and the client identity it
// was issued to (a dynamic registration is kept so it is not repeated).
type Record struct {
	Resource     string        `json:"resource"`
	Issuer       string        `json:"issuer,omitempty"`
	ClientID     string        `json:"clientId,omitempty"`
	ClientSecret string        `json:"clientSecret,omitempty"`
	Scopes       []string      `json:"scopes,omitempty"`
	Token        *oauth2.Token `json:"token,omitempty"`
	// TokenEndpointAuthMethod is how ClientID authenticates at the token
	// endpoint (the method a dynamic registration granted).
	TokenEndpointAuthMethod string `json:"tokenEndpointAuthMethod,omitempty"`
	// RedirectURI is the redirect URI a dynamic registration registered;
	// another one (a new loopback port) needs a new registration.
	RedirectURI string `json:"redirectUri,omitempty"`
}

// ErrUnauthorized matches (errors.Is) every failure authorization could
// not cure: a 401 after a fresh authorization, a 403 other than
// insufficient_scope, a step-up limit reached, refused metadata, a
// login that needs a user agent when there is none.
var ErrUnauthorized = errors.New("oauth: unauthorized")

// UnauthorizedError is an authorization failure. It never holds a token or
// a secret. Retrying does not cure it (Permanent).
type UnauthorizedError struct {
	Status      int    // HTTP status of the answer that ended it, if any
	Code        string // OAuth error code (invalid_token, insufficient_scope, ...)
	Description string // the server's error_description
	Reason      string // what the client concluded, in words
	Err         error  // an underlying cause, if any
}

func (e *UnauthorizedError) Error() string        { return e.message() }
func (e *UnauthorizedError) Unwrap() error        { return e.Err }
func (e *UnauthorizedError) Is(target error) bool { return target == ErrUnauthorized }
func (e *UnauthorizedError) Permanent() bool      { return true }
func (e *UnauthorizedError) ErrorType() string    { return "unauthorized" }

// NewMemoryStore returns a TokenStore that lives as long as the process.
func NewMemoryStore() TokenStore { return newMemoryStore() }

// NewFileStore returns a TokenStore keeping one file per key in dir
// (created 0700; files 0600, written atomically). An existing dir that
// group or others may write, or a file they may read, makes Load and Save
// fail with an *InsecureTokenStoreError saying which chmod fixes it.
func NewFileStore(dir string) TokenStore { return newFileStore(dir) }

// NewLoopbackAgent returns the UserAgent of interactive logins: it listens
// on 127.0.0.1:port (0: any free port) for the redirect and calls open with
// the authorization URL (to start a browser or print the URL).
func NewLoopbackAgent(port int, open func(authURL string) error) UserAgent {
	return newLoopbackAgent(port, open)
}

// NewRedirectAgent returns a headless UserAgent for authorization servers
// that redirect at once (test servers, the conformance suite): it requests
// the authorization URL without following redirects and reads the code
// from the Location header. redirectURI is what it registers and sends.
func NewRedirectAgent(client *http.Client, redirectURI string) UserAgent {
	return newRedirectAgent(client, redirectURI)
}
