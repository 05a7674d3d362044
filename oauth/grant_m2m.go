package oauth

import (
	"context"
	"net/url"
	"strings"

	"golang.org/x/oauth2"
)

// Cross-app access (SEP-990, Identity Assertion Authorization Grant)
// identifiers.
const (
	grantTypeTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	grantTypeJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	tokenTypeIDToken       = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG         = "urn:ietf:params:oauth:token-type:id-jag"
)

// clientCredentials runs the client credentials grant (OAuth 2.1 §4.2;
// the MCP extension SEP-1046): the client authenticates with its secret
// or a private_key_jwt assertion and gets a token for the resource.
func (a *authorizer) clientCredentials(ctx context.Context, d *discovery, rec *Record, scopes []string) (*oauth2.Token, error) {
	id, err := a.resolveClient(ctx, d, rec, "")
	if err != nil {
		return nil, err
	}
	params := url.Values{"grant_type": {"client_credentials"}, "resource": {d.resource}}
	if len(scopes) > 0 {
		params.Set("scope", strings.Join(scopes, " "))
	}
	a.log.DebugContext(ctx, "oauth: client credentials grant", "endpoint", d.as.TokenEndpoint, "auth_method", id.Method)
	tok, err := a.postToken(ctx, d.as.TokenEndpoint, id, d.as.Issuer, params)
	if err != nil {
		return nil, refusal(err, "the token endpoint refused the client credentials")
	}
	return tok, nil
}

// crossAppAccess runs the cross-app access flow: the identity provider
// exchanges the user's ID token for an identity assertion JWT
// authorization grant (ID-JAG) aimed at the MCP server's authorization
// server (RFC 8693 token exchange), which that server exchanges for an
// access token (RFC 7523 JWT bearer grant).
func (a *authorizer) crossAppAccess(ctx context.Context, d *discovery, rec *Record, scopes []string) (*oauth2.Token, error) {
	idp := a.cfg.IDP
	if idp == nil || idp.IDToken == "" {
		return nil, unauthorized("cross-app access needs the identity provider's ID token (idp.idToken)", nil)
	}
	idpTokenURL := idp.TokenEndpoint
	if idpTokenURL == "" {
		if idp.Issuer == "" {
			return nil, unauthorized("cross-app access needs idp.tokenEndpoint or idp.issuer", nil)
		}
		meta, found, err := a.fetchASMetadata(ctx, idp.Issuer)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, unauthorized("the identity provider publishes no metadata with a token endpoint", nil)
		}
		idpTokenURL = meta.TokenEndpoint
	}
	idpClient := clientIdentity{ID: idp.ClientID, Secret: idp.ClientSecret, Method: authNone}
	if idp.ClientSecret != "" {
		idpClient.Method = authSecretBasic
	}
	exchange := url.Values{
		"grant_type":           {grantTypeTokenExchange},
		"requested_token_type": {tokenTypeIDJAG},
		"audience":             {d.as.Issuer},
		"resource":             {d.resource},
		"subject_token":        {idp.IDToken},
		"subject_token_type":   {tokenTypeIDToken},
	}
	if len(scopes) > 0 {
		exchange.Set("scope", strings.Join(scopes, " "))
	}
	a.log.DebugContext(ctx, "oauth: token exchange at the identity provider", "endpoint", idpTokenURL, "audience", d.as.Issuer)
	jag, err := a.postToken(ctx, idpTokenURL, idpClient, idp.Issuer, exchange)
	if err != nil {
		return nil, refusal(err, "the identity provider refused the token exchange")
	}
	if issued, _ := jag.Extra("issued_token_type").(string); issued != "" && issued != tokenTypeIDJAG {
		return nil, unauthorized("the identity provider issued a "+issued+", not an ID-JAG", nil)
	}

	id, err := a.resolveClient(ctx, d, rec, "")
	if err != nil {
		return nil, err
	}
	bearer := url.Values{
		"grant_type": {grantTypeJWTBearer},
		"assertion":  {jag.AccessToken},
		"resource":   {d.resource},
	}
	if len(scopes) > 0 {
		bearer.Set("scope", strings.Join(scopes, " "))
	}
	a.log.DebugContext(ctx, "oauth: JWT bearer grant", "endpoint", d.as.TokenEndpoint, "auth_method", id.Method)
	tok, err := a.postToken(ctx, d.as.TokenEndpoint, id, d.as.Issuer, bearer)
	if err != nil {
		return nil, refusal(err, "the authorization server refused the ID-JAG")
	}
	return tok, nil
}
