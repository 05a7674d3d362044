package oauth

import (
	"context"
	"net/url"
	"slices"

	"golang.org/x/oauth2"
)

// authorizationCode runs the authorization code grant with PKCE S256
// (OAuth 2.1 §4.1, RFC 7636) and RFC 8707 resource indicators: the user
// agent takes the user to the authorization endpoint, and the code it
// brings back is exchanged at the token endpoint.
func (a *authorizer) authorizationCode(ctx context.Context, d *discovery, rec *Record, scopes []string) (*oauth2.Token, error) {
	if a.agent == nil {
		return nil, &UnauthorizedError{Reason: "the server needs an interactive login", Err: ErrLoginRequired}
	}
	// MCP 2025-11-25: a client must refuse an authorization server whose
	// metadata does not advertise S256 (an absent
	// code_challenge_methods_supported means no PKCE). Servers without
	// metadata (the 2025-03-26 default endpoints) cannot say and get S256.
	if d.asFromMetadata && !slices.Contains(d.as.CodeChallengeMethodsSupported, "S256") {
		return nil, unauthorized("the authorization server does not advertise PKCE S256 in code_challenge_methods_supported", nil)
	}
	if d.as.AuthorizationEndpoint == "" {
		return nil, unauthorized("the authorization server metadata has no authorization_endpoint", nil)
	}
	// The agent learns whose sign-in this is from its context.
	agentCtx := withSubject(ctx, a.subject)
	redirectURI, err := a.agent.RedirectURI(agentCtx)
	if err != nil {
		return nil, err
	}
	id, err := a.resolveClient(ctx, d, rec, redirectURI)
	if err != nil {
		return nil, err
	}
	conf := &oauth2.Config{
		ClientID:    id.ID,
		Endpoint:    oauth2.Endpoint{AuthURL: d.as.AuthorizationEndpoint, TokenURL: d.as.TokenEndpoint},
		RedirectURL: redirectURI,
		Scopes:      scopes,
	}
	state := randomString(32)
	verifier := oauth2.GenerateVerifier()
	resource := oauth2.SetAuthURLParam("resource", d.resource)
	authURL := conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), resource)

	a.log.DebugContext(ctx, "oauth: authorization request", "endpoint", d.as.AuthorizationEndpoint, "scopes", scopes, "resource", d.resource)
	q, err := a.agent.Authorize(agentCtx, authURL)
	if err != nil {
		return nil, err
	}
	if err := checkResponseIssuer(q, d); err != nil {
		return nil, err
	}
	if code := q.Get("error"); code != "" {
		return nil, &UnauthorizedError{Code: code, Description: q.Get("error_description"), Reason: "the authorization server refused the authorization request"}
	}
	if q.Get("state") != state {
		return nil, unauthorized("the authorization response's state does not match the request's", nil)
	}
	code := q.Get("code")
	if code == "" {
		return nil, unauthorized("the authorization response carries no code", nil)
	}

	// The client assertion (private_key_jwt) is made now, after the user
	// step, so that a slow login does not outlive it.
	style, secret, extra, err := id.tokenRequestAuth(d.as.Issuer)
	if err != nil {
		return nil, err
	}
	conf.ClientSecret, conf.Endpoint.AuthStyle = secret, style
	opts := []oauth2.AuthCodeOption{oauth2.VerifierOption(verifier), resource}
	for k := range extra {
		opts = append(opts, oauth2.SetAuthURLParam(k, extra.Get(k)))
	}
	tok, err := conf.Exchange(a.oauthContext(ctx), code, opts...)
	if err != nil {
		return nil, refusal(sanitizeTokenError(err), "the token endpoint refused the authorization code")
	}
	return tok, nil
}

// checkResponseIssuer applies RFC 9207 §2.4 as the MCP draft (2026-07-28)
// asks, before the code is used or an error shown: an iss in the
// response must be the recorded issuer, compared as plain strings; a
// server that advertises iss must send it. This defeats mix-up attacks
// where another authorization server's response is injected.
func checkResponseIssuer(q url.Values, d *discovery) error {
	iss, present := q["iss"]
	switch {
	case present && (len(iss) != 1 || iss[0] != d.as.Issuer):
		return unauthorized("the authorization response comes from another issuer (RFC 9207 iss mismatch)", nil)
	case !present && d.as.IssParameterSupported:
		return unauthorized("the authorization response lacks the iss its server advertises (RFC 9207)", nil)
	}
	return nil
}
