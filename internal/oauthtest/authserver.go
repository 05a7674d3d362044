package oauthtest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

func (k *Kit) metadataPath() string {
	if k.cfg.MetadataPath != "" {
		return k.cfg.MetadataPath
	}
	return WellKnownAS + k.cfg.ASPrefix
}

func (k *Kit) serveAS(w http.ResponseWriter, r *http.Request) {
	k.mu.Lock()
	k.asHits = append(k.asHits, r.URL.Path)
	k.mu.Unlock()
	p := k.cfg.ASPrefix
	switch {
	case r.URL.Path == k.metadataPath() && k.cfg.MetadataPath != "-":
		k.serveMetadata(w)
	case r.URL.Path == p+"/authorize":
		k.serveAuthorize(w, r)
	case r.URL.Path == p+"/token" && r.Method == http.MethodPost:
		k.serveToken(w, r)
	case r.URL.Path == p+"/register" && r.Method == http.MethodPost && !k.cfg.NoRegistration:
		k.serveRegister(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (k *Kit) serveMetadata(w http.ResponseWriter) {
	base := k.Issuer()
	doc := map[string]any{
		"issuer":                   base,
		"authorization_endpoint":   base + "/authorize",
		"token_endpoint":           base + "/token",
		"response_types_supported": []string{"code"},
	}
	if !k.cfg.NoRegistration {
		doc["registration_endpoint"] = base + "/register"
	}
	if !k.cfg.OmitPKCE {
		doc["code_challenge_methods_supported"] = []string{"S256"}
	}
	if k.cfg.AuthMethods != nil {
		doc["token_endpoint_auth_methods_supported"] = k.cfg.AuthMethods
	}
	if k.cfg.ScopesSupported != nil {
		doc["scopes_supported"] = k.cfg.ScopesSupported
	}
	if k.cfg.CIMD {
		doc["client_id_metadata_document_supported"] = true
	}
	k.mu.Lock()
	if k.metadataIssuer != "" {
		doc["issuer"] = k.metadataIssuer
	}
	k.mu.Unlock()
	if k.cfg.ISSSupported {
		doc["authorization_response_iss_parameter_supported"] = true
	}
	if k.cfg.OpenID {
		doc["jwks_uri"] = base + "/jwks"
		doc["subject_types_supported"] = []string{"public"}
	}
	WriteJSON(w, http.StatusOK, doc)
}

func (k *Kit) knownClient(id string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, dyn := k.clients[id]
	_, pre := k.cfg.PreClients[id]
	_, jwtc := k.cfg.JWTClients[id]
	return dyn || pre || jwtc || (k.cfg.CIMD && strings.HasPrefix(id, "https://"))
}

// serveAuthorize redirects at once, as a user who consents would be: the
// code (or AuthError) goes back in the redirect's query.
func (k *Kit) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	k.mu.Lock()
	k.authRequests = append(k.authRequests, q)
	k.noteSecretsLocked("state", q.Get("state"))
	k.noteSecretsLocked("PKCE challenge", q.Get("code_challenge"))
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
	if k.cfg.WrongState {
		state = "not-the-state-sent"
	}
	v.Set("state", state)
	switch k.cfg.ISSParam {
	case "":
	case "right":
		v.Set("iss", k.Issuer())
	default:
		v.Set("iss", k.cfg.ISSParam)
	}
	if k.cfg.AuthError != "" {
		v.Set("error", k.cfg.AuthError)
		v.Set("error_description", "the user said no")
	} else {
		k.mu.Lock()
		code := k.secretLocked("code", "authorization code")
		k.codes[code] = codeGrant{challenge: q.Get("code_challenge"), method: q.Get("code_challenge_method"),
			clientID: q.Get("client_id"), redirectURI: q.Get("redirect_uri"), resource: q.Get("resource"),
			scopes: strings.Fields(q.Get("scope"))}
		k.mu.Unlock()
		v.Set("code", code)
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (k *Kit) serveToken(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	clientID, method, ok := k.authenticateClient(r)
	f := r.PostForm
	k.mu.Lock()
	k.tokenRequests = append(k.tokenRequests, TokenRequest{Form: f, AuthMethod: method, ClientID: clientID})
	for _, p := range []string{"code_verifier", "client_secret", "client_assertion", "assertion", "subject_token"} {
		k.noteSecretsLocked(p, f.Get(p))
	}
	k.mu.Unlock()
	if !ok {
		WriteJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client", "error_description": "client authentication failed"})
		return
	}
	var scopes []string
	switch f.Get("grant_type") {
	case GrantAuthorizationCode:
		k.mu.Lock()
		g, found := k.codes[f.Get("code")]
		delete(k.codes, f.Get("code"))
		k.mu.Unlock()
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case !found:
			WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "unknown code"})
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "PKCE verification failed"})
			return
		case g.clientID != clientID || g.redirectURI != f.Get("redirect_uri") || g.resource != f.Get("resource"):
			WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "code issued to another client, redirect or resource"})
			return
		}
		scopes = g.scopes
	case GrantRefreshToken:
		if !k.waitForHold(r) {
			WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "temporarily_unavailable"})
			return
		}
		k.mu.Lock()
		s, found := k.refresh[f.Get("refresh_token")]
		delete(k.refresh, f.Get("refresh_token"))
		k.mu.Unlock()
		if !found {
			WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "unknown refresh token"})
			return
		}
		scopes = s
	case GrantClientCredentials:
		scopes = strings.Fields(f.Get("scope"))
	case GrantJWTBearer:
		if !k.verifyJAG(f.Get("assertion"), clientID, f.Get("resource")) {
			WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "bad ID-JAG"})
			return
		}
		scopes = strings.Fields(f.Get("scope"))
	default:
		WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	k.issue(w, scopes)
}

// issue answers a token request with a new access token (and refresh
// token, with RefreshTokens) for scopes.
func (k *Kit) issue(w http.ResponseWriter, scopes []string) {
	exp := k.cfg.ExpiresIn
	if exp == 0 {
		exp = 3600
	}
	k.mu.Lock()
	access := k.secretLocked("at", "access token")
	resp := map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": exp}
	if len(scopes) > 0 {
		resp["scope"] = strings.Join(scopes, " ")
	}
	k.tokens[access] = scopes
	if k.cfg.RefreshTokens {
		rt := k.secretLocked("rt", "refresh token")
		k.refresh[rt] = scopes
		resp["refresh_token"] = rt
	}
	k.mu.Unlock()
	WriteJSON(w, http.StatusOK, resp)
}

func (k *Kit) serveRegister(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	method, _ := body["token_endpoint_auth_method"].(string)
	if k.cfg.GrantMethod != "" {
		method = k.cfg.GrantMethod
	}
	c := dynClient{method: method}
	if uris, _ := body["redirect_uris"].([]any); len(uris) > 0 {
		c.redirect, _ = uris[0].(string)
	}
	k.mu.Lock()
	k.registrations = append(k.registrations, body)
	id := fmt.Sprintf("dyn-client-%d-%d", k.serial, k.next())
	if method != AuthNone && !k.cfg.NoSecret {
		c.secret = k.secretLocked("dyn-secret", "client secret")
	}
	k.clients[id] = c
	k.mu.Unlock()
	resp := map[string]any{"client_id": id, "redirect_uris": body["redirect_uris"]}
	if c.secret != "" {
		resp["client_secret"] = c.secret
	}
	if k.cfg.GrantMethod != "" {
		resp["token_endpoint_auth_method"] = method
	}
	WriteJSON(w, http.StatusCreated, resp)
}
