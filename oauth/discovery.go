package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// protectedResourceMetadata is the part of RFC 9728 metadata the client
// uses.
type protectedResourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// authServerMetadata is the part of RFC 8414 / OpenID Connect discovery
// metadata the client uses.
type authServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	// IssParameterSupported: the authorization response carries iss
	// (RFC 9207), which the client must then check.
	IssParameterSupported bool `json:"authorization_response_iss_parameter_supported"`
}

// discovery is what the client learned about where and how to obtain
// tokens for the server.
type discovery struct {
	// resource is the RFC 8707 resource indicator sent in authorization
	// and token requests: the metadata's resource, else the canonical
	// server URL.
	resource string
	// prm is nil for servers without protected resource metadata
	// (2025-03-26 servers).
	prm *protectedResourceMetadata
	as  authServerMetadata
	// asFromMetadata is false when the 2025-03-26 default endpoints are
	// used because the server's origin publishes no metadata.
	asFromMetadata bool
	// challengeScopes is the scope of the challenge that started it.
	challengeScopes []string
}

const (
	wellKnownPRM  = "/.well-known/oauth-protected-resource"
	wellKnownAS   = "/.well-known/oauth-authorization-server"
	wellKnownOIDC = "/.well-known/openid-configuration"
	maxMetadata   = 1 << 20
)

// discover finds the protected resource metadata and the authorization
// server metadata of the server. ch is the challenge of the 401 that
// started it; nil makes it probe the server for one first.
func (a *authorizer) discover(ctx context.Context, ch *bearerChallenge) (*discovery, error) {
	if ch == nil {
		probed, err := a.probeChallenge(ctx)
		if err != nil {
			return nil, err
		}
		ch = probed
	}
	prm, err := a.fetchPRM(ctx, ch.ResourceMetadata)
	if err != nil {
		return nil, err
	}
	return a.discoverFrom(ctx, ch, prm)
}

// discoverFrom completes discovery from the protected resource metadata
// found (nil: none) and the challenge that started it.
func (a *authorizer) discoverFrom(ctx context.Context, ch *bearerChallenge, prm *protectedResourceMetadata) (*discovery, error) {
	d := &discovery{challengeScopes: ch.Scopes}
	if prm == nil {
		// 2025-03-26: no protected resource metadata. The authorization
		// server is the MCP server's origin (the path is discarded); its
		// metadata is at the origin's well-known URI, and without any the
		// default endpoints are at the origin.
		a.log.DebugContext(ctx, "oauth: no protected resource metadata; using the server origin as authorization server")
		d.resource = a.resource.String()
		base := origin(a.resource)
		meta, found, err := a.fetchASMetadata(ctx, base)
		if err != nil {
			return nil, err
		}
		if found {
			d.as, d.asFromMetadata = meta, true
		} else {
			a.log.DebugContext(ctx, "oauth: no authorization server metadata; using default endpoints", "origin", base)
			d.as = authServerMetadata{
				Issuer:                base,
				AuthorizationEndpoint: base + "/authorize",
				TokenEndpoint:         base + "/token",
				RegistrationEndpoint:  base + "/register",
			}
		}
		return d, nil
	}

	if !resourceCovers(prm.Resource, a.resource) {
		return nil, unauthorized(fmt.Sprintf("protected resource metadata is for resource %q, not for the server %q", prm.Resource, a.resource.String()), nil)
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, unauthorized("protected resource metadata names no authorization server", nil)
	}
	d.prm, d.resource = prm, prm.Resource
	issuer := prm.AuthorizationServers[0]
	meta, found, err := a.fetchASMetadata(ctx, issuer)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, unauthorized(fmt.Sprintf("authorization server %q publishes no usable metadata", issuer), nil)
	}
	// RFC 8414 §3.3 (and the MCP draft): the metadata must be the
	// issuer's own, its issuer identical to the one it was fetched for.
	if meta.Issuer != issuer {
		return nil, unauthorized(fmt.Sprintf("authorization server metadata names issuer %q, expected %q", meta.Issuer, issuer), nil)
	}
	d.as, d.asFromMetadata = meta, true
	return d, nil
}

// rediscover reads the protected resource metadata again after the
// server refused a request (a 401), because the server may have moved
// to another authorization server (SEP-2352), and returns what to
// authorize with: prev's authorization server when the metadata still
// names it, else a full discovery of the one it names now.
// Metadata that cannot be found now says nothing of a move: prev stays.
func (a *authorizer) rediscover(ctx context.Context, prev *discovery, ch *bearerChallenge) (*discovery, error) {
	prm, err := a.fetchPRM(ctx, ch.ResourceMetadata)
	if err != nil {
		return nil, err
	}
	if prm == nil {
		return prev, nil
	}
	if prev.prm != nil && prm.Resource == prev.prm.Resource &&
		len(prm.AuthorizationServers) > 0 && prm.AuthorizationServers[0] == prev.as.Issuer {
		// The same authorization server: keep its metadata, take the
		// resource's as just read (its scopes_supported may have changed).
		d := *prev
		d.prm = prm
		return &d, nil
	}
	return a.discoverFrom(ctx, ch, prm)
}

// fetchPRM tries the challenge's resource_metadata URL, then the
// path-aware and the root well-known URIs (RFC 9728 §3.1; MCP
// "Protected Resource Metadata Discovery"). nil, nil: none found.
func (a *authorizer) fetchPRM(ctx context.Context, fromChallenge string) (*protectedResourceMetadata, error) {
	var candidates []string
	if u, err := url.Parse(fromChallenge); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
		candidates = append(candidates, u.String())
	}
	base := origin(a.resource)
	if p := a.resource.Path; p != "" && p != "/" {
		candidates = append(candidates, base+wellKnownPRM+p)
	}
	candidates = append(candidates, base+wellKnownPRM)
	for _, c := range candidates {
		var prm protectedResourceMetadata
		found, err := a.fetchJSON(ctx, c, &prm)
		if err != nil {
			return nil, err
		}
		if found {
			a.log.DebugContext(ctx, "oauth: protected resource metadata", "url", c, "resource", prm.Resource)
			return &prm, nil
		}
	}
	return nil, nil
}

// asMetadataURLs lists the metadata URLs of an issuer in the order the
// MCP specification (2025-11-25) gives: RFC 8414 then OpenID Connect
// discovery, with path insertion for issuers with a path (and OpenID
// Connect's path appending last); never the root URIs for an issuer with
// a path, as they belong to another issuer.
func asMetadataURLs(issuer string) ([]string, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("issuer %q is not an absolute URL", issuer)
	}
	base := origin(u)
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	if p == "" {
		return []string{base + wellKnownAS, base + wellKnownOIDC}, nil
	}
	return []string{base + wellKnownAS + p, base + wellKnownOIDC + p, base + p + wellKnownOIDC}, nil
}

// fetchASMetadata returns the first usable metadata document of issuer.
func (a *authorizer) fetchASMetadata(ctx context.Context, issuer string) (authServerMetadata, bool, error) {
	urls, err := asMetadataURLs(issuer)
	if err != nil {
		return authServerMetadata{}, false, unauthorized("authorization server", err)
	}
	for _, c := range urls {
		var meta authServerMetadata
		found, err := a.fetchJSON(ctx, c, &meta)
		if err != nil {
			return authServerMetadata{}, false, err
		}
		if found && meta.TokenEndpoint != "" {
			a.log.DebugContext(ctx, "oauth: authorization server metadata", "url", c, "issuer", meta.Issuer)
			return meta, true, nil
		}
	}
	return authServerMetadata{}, false, nil
}

// fetchJSON GETs a metadata document into v. found is false for any
// non-2xx answer or a body that is not the JSON object expected: the
// caller tries the next candidate. err is a transport failure.
func (a *authorizer) fetchJSON(ctx context.Context, rawURL string, v any) (found bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return false, nil
	}
	req.Header.Set("Accept", "application/json")
	resp, err := a.httpClient.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxMetadata))
		a.log.DebugContext(ctx, "oauth: metadata not found", "url", rawURL, "status", resp.StatusCode)
		return false, nil
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetadata)).Decode(v); err != nil {
		a.log.DebugContext(ctx, "oauth: metadata is not JSON", "url", rawURL)
		return false, nil
	}
	return true, nil
}

// probeChallenge sends the server an unauthenticated JSON-RPC ping to read
// its WWW-Authenticate challenge, for logins that start without a
// request (Login, Token). A server that does not answer 401 yields an
// empty challenge and discovery goes on with the well-known URIs.
func (a *authorizer) probeChallenge(ctx context.Context) (*bearerChallenge, error) {
	body := `{"jsonrpc":"2.0","id":"mcpengine-oauth-probe","method":"ping"}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.serverURL, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := a.httpClient.Do(req)
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxMetadata))
	resp.Body.Close()
	ch, _ := parseBearerChallenge(resp.Header)
	return &ch, nil
}
