package oauth

// A small authorization server, resource server and identity provider
// for the tests: real HTTP on loopback, checking what a strict server
// checks (PKCE, state round trip, redirect URI, client authentication,
// resource indicators) and recording what it received.

import (
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"
)

// kitConfig shapes the servers of one test.
type kitConfig struct {
	// Resource server.
	prmPath         string // where the PRM is served; "" = path-aware default, "-" = nowhere
	prmInHeader     bool   // resource_metadata in the 401 challenge
	prmResource     string // overrides the PRM's resource
	prmScopes       []string
	challengeScope  []string                     // scope in the 401 challenge
	needScopes      func(method string) []string // scopes a JSON-RPC method needs (403 insufficient_scope otherwise)
	alwaysTooLittle bool                         // every authorized request gets 403 insufficient_scope
	scopeWith401    bool                         // insufficient_scope comes with a 401 instead of a 403
	rejectAllTokens bool                         // every token gets 401 invalid_token
	forbidAll       bool                         // every authorized request gets a plain 403

	// Authorization server.
	asOnRS          bool   // the AS is served by the resource server (2025-03-26)
	asPrefix        string // issuer path
	metadataPath    string // "" = RFC 8414 at the issuer's path-inserted URI; "-" = no metadata
	openID          bool
	scopesSupported []string
	omitPKCE        bool
	authMethods     []string // token_endpoint_auth_methods_supported (nil: omitted)
	cimd            bool
	noRegistration  bool
	grantMethod     string // token_endpoint_auth_method granted by /register ("" = as asked)
	noSecret        bool   // /register issues no secret
	refreshTokens   bool
	expiresIn       int               // seconds; 0 = 3600
	preClients      map[string]string // pre-registered id → secret
	jwtClients      map[string]*ecdsa.PublicKey
	wrongState      bool
	authError       string // /authorize answers with this error
	issSupported    bool   // metadata advertises authorization_response_iss_parameter_supported
	issParam        string // iss in the authorization response: "" none, "right", or a wrong value
	metadataIssuer  string // overrides the issuer the metadata names
}

type tokenRequest struct {
	Form       url.Values
	AuthMethod string // how the client authenticated
	ClientID   string
}

type codeGrant struct {
	challenge, method, clientID, redirectURI, resource string
	scopes                                             []string
}

type kit struct {
	t      *testing.T
	cfg    kitConfig
	rs, as *httptest.Server
	idp    *httptest.Server
	client *http.Client

	idpKey  *ecdsa.PrivateKey // signs ID-JAGs
	idpJAGs atomic.Int32

	mu            sync.Mutex
	rsHits        []string // paths requested from the resource server
	asHits        []string // paths requested from the authorization server
	authRequests  []url.Values
	tokenRequests []tokenRequest
	registrations []map[string]any
	idpRequests   []tokenRequest
	clients       map[string]dynClient
	codes         map[string]codeGrant
	tokens        map[string][]string // valid access token → scopes
	refresh       map[string][]string // valid refresh token → scopes
	mcpOK         atomic.Int32
	n             atomic.Int64
}

type dynClient struct{ secret, method, redirect string }

func newKit(t *testing.T, cfg kitConfig) *kit {
	t.Helper()
	tr := &http.Transport{}
	k := &kit{t: t, cfg: cfg, client: &http.Client{Transport: tr},
		clients: map[string]dynClient{}, codes: map[string]codeGrant{},
		tokens: map[string][]string{}, refresh: map[string][]string{}}
	k.rs = httptest.NewServer(http.HandlerFunc(k.serveRS))
	if cfg.asOnRS {
		k.as = k.rs
	} else {
		k.as = httptest.NewServer(http.HandlerFunc(k.serveAS))
	}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		k.rs.Close()
		if !cfg.asOnRS {
			k.as.Close()
		}
		if k.idp != nil {
			k.idp.Close()
		}
	})
	return k
}

func (k *kit) serverURL() string { return k.rs.URL + "/mcp" }
func (k *kit) issuer() string    { return k.as.URL + k.cfg.asPrefix }
func (k *kit) next() int64       { return k.n.Add(1) }

func (k *kit) prmPath() string {
	switch k.cfg.prmPath {
	case "":
		return wellKnownPRM + "/mcp"
	default:
		return k.cfg.prmPath
	}
}

// ---- resource server ----

func (k *kit) serveRS(w http.ResponseWriter, r *http.Request) {
	if k.cfg.asOnRS && r.URL.Path != "/mcp" && !strings.HasPrefix(r.URL.Path, wellKnownPRM) {
		k.serveAS(w, r)
		return
	}
	k.mu.Lock()
	k.rsHits = append(k.rsHits, r.URL.Path)
	k.mu.Unlock()
	switch {
	case r.URL.Path == k.prmPath() && k.cfg.prmPath != "-":
		resource := k.serverURL()
		if k.prmPath() == wellKnownPRM {
			resource = k.rs.URL
		}
		if k.cfg.prmResource != "" {
			resource = k.cfg.prmResource
		}
		doc := map[string]any{"resource": resource, "authorization_servers": []string{k.issuer()}}
		if k.cfg.prmScopes != nil {
			doc["scopes_supported"] = k.cfg.prmScopes
		}
		writeJSON(w, http.StatusOK, doc)
	case r.URL.Path == "/mcp":
		k.serveMCP(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (k *kit) challenge(errCode, desc string, scopes []string) string {
	var parts []string
	if errCode != "" {
		parts = append(parts, fmt.Sprintf(`error="%s"`, errCode))
	}
	if desc != "" {
		parts = append(parts, fmt.Sprintf(`error_description="%s"`, desc))
	}
	if len(scopes) > 0 {
		parts = append(parts, fmt.Sprintf(`scope="%s"`, strings.Join(scopes, " ")))
	}
	if k.cfg.prmInHeader && k.cfg.prmPath != "-" {
		parts = append(parts, fmt.Sprintf(`resource_metadata="%s%s"`, k.rs.URL, k.prmPath()))
	}
	return "Bearer " + strings.Join(parts, ", ")
}

func (k *kit) serveMCP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method == http.MethodPost && !json.Valid(body) {
		http.Error(w, "body is not JSON", http.StatusBadRequest)
		return
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		w.Header().Set("WWW-Authenticate", k.challenge("", "", k.cfg.challengeScope))
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token", "error_description": "Missing Authorization header"})
		return
	}
	k.mu.Lock()
	scopes, valid := k.tokens[tok]
	k.mu.Unlock()
	if !valid || k.cfg.rejectAllTokens {
		w.Header().Set("WWW-Authenticate", k.challenge("invalid_token", "token revoked by policy", k.cfg.challengeScope))
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token"})
		return
	}
	if k.cfg.forbidAll {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "access_denied", "error_description": "tenant suspended"})
		return
	}
	if k.cfg.alwaysTooLittle {
		w.Header().Set("WWW-Authenticate", k.challenge("insufficient_scope", "Scope upgrade will never succeed", k.cfg.challengeScope))
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "insufficient_scope"})
		return
	}
	if k.cfg.needScopes != nil {
		var msg struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		need := k.cfg.needScopes(msg.Method)
		for _, s := range need {
			if !slices.Contains(scopes, s) {
				w.Header().Set("WWW-Authenticate", k.challenge("insufficient_scope", "needs more scope", need))
				status := http.StatusForbidden
				if k.cfg.scopeWith401 {
					status = http.StatusUnauthorized
				}
				writeJSON(w, status, map[string]string{"error": "insufficient_scope"})
				return
			}
		}
	}
	k.mcpOK.Add(1)
	writeJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{}})
}

// ---- authorization server ----

func (k *kit) metadataPath() string {
	if k.cfg.metadataPath != "" {
		return k.cfg.metadataPath
	}
	return wellKnownAS + k.cfg.asPrefix
}

func (k *kit) serveAS(w http.ResponseWriter, r *http.Request) {
	k.mu.Lock()
	k.asHits = append(k.asHits, r.URL.Path)
	k.mu.Unlock()
	p := k.cfg.asPrefix
	switch {
	case r.URL.Path == k.metadataPath() && k.cfg.metadataPath != "-":
		k.serveMetadata(w)
	case r.URL.Path == p+"/authorize":
		k.serveAuthorize(w, r)
	case r.URL.Path == p+"/token" && r.Method == http.MethodPost:
		k.serveToken(w, r)
	case r.URL.Path == p+"/register" && r.Method == http.MethodPost && !k.cfg.noRegistration:
		k.serveRegister(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (k *kit) serveMetadata(w http.ResponseWriter) {
	base := k.issuer()
	doc := map[string]any{
		"issuer":                   base,
		"authorization_endpoint":   base + "/authorize",
		"token_endpoint":           base + "/token",
		"response_types_supported": []string{"code"},
	}
	if !k.cfg.noRegistration {
		doc["registration_endpoint"] = base + "/register"
	}
	if !k.cfg.omitPKCE {
		doc["code_challenge_methods_supported"] = []string{"S256"}
	}
	if k.cfg.authMethods != nil {
		doc["token_endpoint_auth_methods_supported"] = k.cfg.authMethods
	}
	if k.cfg.scopesSupported != nil {
		doc["scopes_supported"] = k.cfg.scopesSupported
	}
	if k.cfg.cimd {
		doc["client_id_metadata_document_supported"] = true
	}
	if k.cfg.metadataIssuer != "" {
		doc["issuer"] = k.cfg.metadataIssuer
	}
	if k.cfg.issSupported {
		doc["authorization_response_iss_parameter_supported"] = true
	}
	if k.cfg.openID {
		doc["jwks_uri"] = base + "/jwks"
		doc["subject_types_supported"] = []string{"public"}
	}
	writeJSON(w, http.StatusOK, doc)
}

func (k *kit) knownClient(id string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, dyn := k.clients[id]
	_, pre := k.cfg.preClients[id]
	_, jwtc := k.cfg.jwtClients[id]
	return dyn || pre || jwtc || (k.cfg.cimd && strings.HasPrefix(id, "https://"))
}

func (k *kit) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	k.mu.Lock()
	k.authRequests = append(k.authRequests, q)
	k.mu.Unlock()
	if q.Get("response_type") != "code" || !k.knownClient(q.Get("client_id")) || q.Get("redirect_uri") == "" {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	if q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256" {
		http.Error(w, "PKCE S256 required", http.StatusBadRequest)
		return
	}
	back, err := url.Parse(q.Get("redirect_uri"))
	if err != nil {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	v := back.Query()
	state := q.Get("state")
	if k.cfg.wrongState {
		state = "not-the-state-sent"
	}
	v.Set("state", state)
	switch k.cfg.issParam {
	case "":
	case "right":
		v.Set("iss", k.issuer())
	default:
		v.Set("iss", k.cfg.issParam)
	}
	if k.cfg.authError != "" {
		v.Set("error", k.cfg.authError)
		v.Set("error_description", "the user said no")
	} else {
		code := fmt.Sprintf("code-%d", k.next())
		k.mu.Lock()
		k.codes[code] = codeGrant{challenge: q.Get("code_challenge"), method: q.Get("code_challenge_method"),
			clientID: q.Get("client_id"), redirectURI: q.Get("redirect_uri"), resource: q.Get("resource"),
			scopes: strings.Fields(q.Get("scope"))}
		k.mu.Unlock()
		v.Set("code", code)
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// authenticateClient checks the token request's client authentication and
// says which method it used.
func (k *kit) authenticateClient(r *http.Request) (clientID, method string, ok bool) {
	form := r.PostForm
	if id, secret, basic := r.BasicAuth(); basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		return id, authSecretBasic, k.secretOK(id, secret)
	}
	if a := form.Get("client_assertion"); a != "" {
		if form.Get("client_assertion_type") != clientAssertionType {
			return "", authPrivateKeyJWT, false
		}
		var claims jwt.RegisteredClaims
		_, err := jwt.ParseWithClaims(a, &claims, func(tk *jwt.Token) (any, error) {
			key := k.cfg.jwtClients[form.Get("client_id")]
			if key == nil {
				iss, _ := tk.Claims.GetIssuer()
				key = k.cfg.jwtClients[iss]
			}
			if key == nil {
				return nil, fmt.Errorf("unknown client")
			}
			return key, nil
		}, jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(k.issuer()), jwt.WithExpirationRequired(), jwt.WithIssuedAt())
		if err != nil || claims.Issuer != claims.Subject {
			return claims.Issuer, authPrivateKeyJWT, false
		}
		return claims.Issuer, authPrivateKeyJWT, true
	}
	id := form.Get("client_id")
	if s := form.Get("client_secret"); s != "" {
		return id, authSecretPost, k.secretOK(id, s)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	c, dyn := k.clients[id]
	public := (dyn && c.secret == "") || (k.cfg.cimd && strings.HasPrefix(id, "https://"))
	return id, authNone, public
}

func (k *kit) secretOK(id, secret string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if s, ok := k.cfg.preClients[id]; ok {
		return s == secret
	}
	c, ok := k.clients[id]
	return ok && c.secret != "" && c.secret == secret
}

func (k *kit) serveToken(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	clientID, method, ok := k.authenticateClient(r)
	k.mu.Lock()
	k.tokenRequests = append(k.tokenRequests, tokenRequest{Form: r.PostForm, AuthMethod: method, ClientID: clientID})
	k.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client", "error_description": "client authentication failed"})
		return
	}
	f := r.PostForm
	var scopes []string
	switch f.Get("grant_type") {
	case "authorization_code":
		k.mu.Lock()
		g, found := k.codes[f.Get("code")]
		delete(k.codes, f.Get("code"))
		k.mu.Unlock()
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case !found:
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "unknown code"})
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "PKCE verification failed"})
			return
		case g.clientID != clientID || g.redirectURI != f.Get("redirect_uri") || g.resource != f.Get("resource"):
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "code issued to another client, redirect or resource"})
			return
		}
		scopes = g.scopes
	case "refresh_token":
		k.mu.Lock()
		s, found := k.refresh[f.Get("refresh_token")]
		delete(k.refresh, f.Get("refresh_token"))
		k.mu.Unlock()
		if !found {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "unknown refresh token"})
			return
		}
		scopes = s
	case "client_credentials":
		scopes = strings.Fields(f.Get("scope"))
	case grantTypeJWTBearer:
		if !k.verifyJAG(f.Get("assertion"), clientID, f.Get("resource")) {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "bad ID-JAG"})
			return
		}
		scopes = strings.Fields(f.Get("scope"))
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	k.issue(w, scopes)
}

func (k *kit) issue(w http.ResponseWriter, scopes []string) {
	n := k.next()
	access := fmt.Sprintf("at-%d-secretvalue", n)
	exp := k.cfg.expiresIn
	if exp == 0 {
		exp = 3600
	}
	resp := map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": exp}
	if len(scopes) > 0 {
		resp["scope"] = strings.Join(scopes, " ")
	}
	k.mu.Lock()
	k.tokens[access] = scopes
	if k.cfg.refreshTokens {
		rt := fmt.Sprintf("rt-%d-secretvalue", n)
		k.refresh[rt] = scopes
		resp["refresh_token"] = rt
	}
	k.mu.Unlock()
	writeJSON(w, http.StatusOK, resp)
}

func (k *kit) serveRegister(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	k.mu.Lock()
	k.registrations = append(k.registrations, body)
	k.mu.Unlock()
	method, _ := body["token_endpoint_auth_method"].(string)
	if k.cfg.grantMethod != "" {
		method = k.cfg.grantMethod
	}
	id := fmt.Sprintf("dyn-client-%d", k.next())
	c := dynClient{method: method}
	if method != authNone && !k.cfg.noSecret {
		c.secret = fmt.Sprintf("dyn-secret-%d-secretvalue", k.next())
	}
	if uris, _ := body["redirect_uris"].([]any); len(uris) > 0 {
		c.redirect, _ = uris[0].(string)
	}
	k.mu.Lock()
	k.clients[id] = c
	k.mu.Unlock()
	resp := map[string]any{"client_id": id, "redirect_uris": body["redirect_uris"]}
	if c.secret != "" {
		resp["client_secret"] = c.secret
	}
	if k.cfg.grantMethod != "" {
		resp["token_endpoint_auth_method"] = method
	}
	writeJSON(w, http.StatusCreated, resp)
}

// ---- identity provider (cross-app access) ----

// startIDP serves an RFC 8693 token endpoint that exchanges idToken for an
// ID-JAG signed with idpKey.
func (k *kit) startIDP(key *ecdsa.PrivateKey, clientID, idToken string) {
	k.idpKey = key
	k.idp = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/token" || r.ParseForm() != nil {
			http.NotFound(w, r)
			return
		}
		f := r.PostForm
		k.mu.Lock()
		k.idpRequests = append(k.idpRequests, tokenRequest{Form: f, ClientID: f.Get("client_id")})
		k.mu.Unlock()
		if f.Get("grant_type") != grantTypeTokenExchange || f.Get("subject_token") != idToken ||
			f.Get("subject_token_type") != tokenTypeIDToken || f.Get("requested_token_type") != tokenTypeIDJAG ||
			f.Get("audience") != k.issuer() || f.Get("resource") == "" || f.Get("client_id") != clientID {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
			return
		}
		t := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{
			"iss": k.idp.URL, "sub": "user@example.com", "aud": f.Get("audience"), "resource": f.Get("resource"),
			"client_id": "xaa-client", "exp": time.Now().Add(5 * time.Minute).Unix(), "iat": time.Now().Unix(),
		})
		t.Header["typ"] = "oauth-id-jag+jwt"
		jag, err := t.SignedString(key)
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error"})
			return
		}
		k.idpJAGs.Add(1)
		writeJSON(w, http.StatusOK, map[string]string{"access_token": jag, "issued_token_type": tokenTypeIDJAG, "token_type": "N_A"})
	}))
}

func (k *kit) verifyJAG(assertion, clientID, resource string) bool {
	if k.idpKey == nil {
		return false
	}
	claims := jwt.MapClaims{}
	tk, err := jwt.ParseWithClaims(assertion, claims, func(*jwt.Token) (any, error) { return &k.idpKey.PublicKey, nil },
		jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(k.issuer()))
	if err != nil || tk.Header["typ"] != "oauth-id-jag+jwt" {
		return false
	}
	return claims["client_id"] == clientID && claims["resource"] == resource
}

// ---- client side ----

// testRedirectURI is registered and sent; the redirect agent never
// connects to it.
const testRedirectURI = "http://127.0.0.1:1/callback"

func (k *kit) authorizer(cfg Config, opts Options) *Authorizer {
	k.t.Helper()
	if opts.HTTPClient == nil {
		opts.HTTPClient = k.client
	}
	if opts.UserAgent == nil && cfg.Grant == "" {
		opts.UserAgent = NewRedirectAgent(k.client, testRedirectURI)
	}
	a, err := New(k.serverURL(), cfg, opts)
	require.NoError(k.t, err)
	return a
}

// mcpClient is the engine's view: one http.Client whose transport is the
// authorizer's.
func (k *kit) mcpClient(a *Authorizer) *http.Client {
	return &http.Client{Transport: a.Transport(k.client.Transport)}
}

// call POSTs a JSON-RPC request (rewindable body, as the engine sends it).
func (k *kit) call(c *http.Client, method string) (int, error) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q}`, method)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, k.serverURL(), strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

func (k *kit) countTokenRequests(grant string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := 0
	for _, r := range k.tokenRequests {
		if r.Form.Get("grant_type") == grant {
			n++
		}
	}
	return n
}

func (k *kit) snapshot() (authReqs []url.Values, tokenReqs []tokenRequest, regs []map[string]any) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.authRequests), slices.Clone(k.tokenRequests), slices.Clone(k.registrations)
}

func (k *kit) hits() (rs, as []string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.rsHits), slices.Clone(k.asHits)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// newHeaderRecorder serves an origin that records the Authorization header
// it receives.
func newHeaderRecorder(t *testing.T, got *string) string {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		*got = r.Header.Get("Authorization")
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
