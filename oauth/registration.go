package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// registrationRequest is the RFC 7591 §2 client metadata the client sends.
type registrationRequest struct {
	ClientName              string   `json:"client_name,omitempty"`
	ApplicationType         string   `json:"application_type,omitempty"`
	RedirectURIs            []string `json:"redirect_uris,omitempty"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
}

// registrationResponse is the part of the RFC 7591 §3.2.1 answer kept.
type registrationResponse struct {
	ClientID                string `json:"client_id"`
	ClientSecret            string `json:"client_secret"`
	TokenEndpointAuthMethod string `json:"token_endpoint_auth_method"`
	Error                   string `json:"error"`
	ErrorDescription        string `json:"error_description"`
}

// resolveClient returns the client's identity at the discovered
// authorization server, in the order the MCP specification gives:
// pre-registered credentials, a Client ID Metadata Document where the
// server supports them, a registration kept from before, dynamic client
// registration. The identity is written into rec (to be stored) except
// for configured secrets, which stay in the configuration.
func (a *authorizer) resolveClient(ctx context.Context, d *discovery, rec *Record, redirectURI string) (clientIdentity, error) {
	cfg := a.cfg
	supported := d.as.TokenEndpointAuthMethodsSupported
	if cfg.ClientID != "" {
		id := clientIdentity{ID: cfg.ClientID, Secret: cfg.ClientSecret, key: a.key,
			Method: chooseAuthMethod(cfg.TokenEndpointAuthMethod, supported, cfg.ClientSecret != "", a.key != nil)}
		rec.ClientID, rec.ClientSecret, rec.TokenEndpointAuthMethod = id.ID, "", id.Method
		return id, nil
	}
	if cfg.ClientMetadataURL != "" && d.as.ClientIDMetadataDocumentSupported {
		// The URL is the client_id; the server fetches the document. A
		// metadata-document client has no secret: none, or a key.
		id := clientIdentity{ID: cfg.ClientMetadataURL, key: a.key,
			Method: chooseAuthMethod(cfg.TokenEndpointAuthMethod, supported, false, a.key != nil)}
		rec.ClientID, rec.ClientSecret, rec.TokenEndpointAuthMethod = id.ID, "", id.Method
		return id, nil
	}
	if rec.ClientID != "" && rec.ClientID != cfg.ClientMetadataURL && rec.Issuer == d.as.Issuer &&
		(redirectURI == "" || rec.RedirectURI == redirectURI) {
		a.log.DebugContext(ctx, "oauth: reusing the stored client registration", "issuer", rec.Issuer)
		return clientIdentity{ID: rec.ClientID, Secret: rec.ClientSecret, Method: rec.TokenEndpointAuthMethod, key: a.key}, nil
	}
	if d.as.RegistrationEndpoint == "" {
		return clientIdentity{}, unauthorized(fmt.Sprintf("authorization server %q offers no dynamic client registration and no client id is configured", d.as.Issuer), nil)
	}
	id, err := a.register(ctx, d, redirectURI)
	if err != nil {
		return clientIdentity{}, err
	}
	rec.ClientID, rec.ClientSecret, rec.TokenEndpointAuthMethod = id.ID, id.Secret, id.Method
	rec.RedirectURI = redirectURI
	return id, nil
}

// register runs RFC 7591 dynamic client registration.
func (a *authorizer) register(ctx context.Context, d *discovery, redirectURI string) (clientIdentity, error) {
	method := registrationAuthMethod(a.cfg.TokenEndpointAuthMethod, d.as.TokenEndpointAuthMethodsSupported)
	body := registrationRequest{
		ClientName:              a.cfg.ClientName,
		TokenEndpointAuthMethod: method,
	}
	if body.ClientName == "" {
		body.ClientName = "mcpengine"
	}
	switch a.grant {
	case GrantClientCredentials:
		body.GrantTypes = []string{"client_credentials"}
	default:
		// refresh_token so that the server issues refresh tokens to it
		// (SEP-2207).
		body.GrantTypes = []string{"authorization_code", "refresh_token"}
		body.ResponseTypes = []string{"code"}
		body.RedirectURIs = []string{redirectURI}
		// OpenID Connect servers check redirect URIs against the
		// application type (MCP draft: MUST send it): loopback redirects
		// are a native application's.
		body.ApplicationType = "web"
		if isLoopbackRedirect(redirectURI) {
			body.ApplicationType = "native"
		}
	}
	buf, err := json.Marshal(body)
	if err != nil {
		return clientIdentity{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.as.RegistrationEndpoint, bytes.NewReader(buf))
	if err != nil {
		return clientIdentity{}, unauthorized("registration endpoint", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := a.httpClient.Do(req)
	if err != nil {
		return clientIdentity{}, err
	}
	defer resp.Body.Close()
	var rr registrationResponse
	decodeErr := json.NewDecoder(io.LimitReader(resp.Body, maxMetadata)).Decode(&rr)
	if resp.StatusCode < 200 || resp.StatusCode > 299 || decodeErr != nil || rr.ClientID == "" {
		return clientIdentity{}, &UnauthorizedError{Status: resp.StatusCode, Code: rr.Error, Description: rr.ErrorDescription,
			Reason: "dynamic client registration failed"}
	}
	if rr.TokenEndpointAuthMethod != "" {
		method = rr.TokenEndpointAuthMethod
	} else if rr.ClientSecret == "" && (method == authSecretBasic || method == authSecretPost) {
		method = authNone
	}
	a.log.DebugContext(ctx, "oauth: registered a client", "endpoint", d.as.RegistrationEndpoint, "auth_method", method)
	return clientIdentity{ID: rr.ClientID, Secret: rr.ClientSecret, Method: method, key: a.key}, nil
}

// isLoopbackRedirect reports whether a redirect URI goes to this machine.
func isLoopbackRedirect(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	switch h := u.Hostname(); {
	case h == "localhost", h == "::1", strings.HasPrefix(h, "127."):
		return true
	}
	return u.Scheme != "http" && u.Scheme != "https" // private-use URI schemes are native too
}
