package oauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/url"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// postToken sends one token request (any grant) to tokenURL with the
// client's authentication, and returns the token or a sanitized error.
// It rides on x/oauth2's token request (encoding, auth header, response
// and error parsing): clientcredentials.Config lets EndpointParams replace
// grant_type, which makes it a generic token request for the grants
// oauth2.Config has no method for (refresh with resource, client
// credentials with an assertion, token exchange, JWT bearer).
func (a *authorizer) postToken(ctx context.Context, tokenURL string, id clientIdentity, audience string, params url.Values) (*oauth2.Token, error) {
	style, secret, extra, err := id.tokenRequestAuth(audience)
	if err != nil {
		return nil, err
	}
	p := url.Values{}
	for k, v := range params {
		p[k] = v
	}
	for k, v := range extra {
		p[k] = v
	}
	cc := clientcredentials.Config{
		ClientID:       id.ID,
		ClientSecret:   secret,
		TokenURL:       tokenURL,
		EndpointParams: p,
		AuthStyle:      style,
	}
	tok, err := cc.Token(a.oauthContext(ctx))
	if err != nil {
		return nil, sanitizeTokenError(err)
	}
	return tok, nil
}

// oauthContext makes x/oauth2 use the Authorizer's HTTP client.
func (a *authorizer) oauthContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, a.httpClient)
}

// refusal wraps an authorization server's refusal into the permanent
// error; a transport failure passes as is.
func refusal(err error, reason string) error {
	var te *tokenEndpointError
	if errors.As(err, &te) {
		return &UnauthorizedError{Status: te.Status, Code: te.Code, Description: te.Description, Reason: reason}
	}
	return err
}

// randomString is n random bytes, base64url without padding (state,
// assertion ids).
func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}
