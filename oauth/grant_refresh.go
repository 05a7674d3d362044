package oauth

import (
	"context"
	"errors"

	"golang.org/x/oauth2"
)

// errNoRefreshToken says a refresh was asked of a token without one.
var errNoRefreshToken = errors.New("oauth: no refresh token")

// refresh runs the refresh_token grant, with the resource indicator
// (RFC 8707 §2.2) that oauth2.Config's refresh cannot send. A server that
// does not rotate refresh tokens keeps the old one valid (x/oauth2 copies
// it into the new token).
func (a *authorizer) refresh(ctx context.Context, d *discovery, rec *Record) (*oauth2.Token, error) {
	if rec.Token == nil || rec.Token.RefreshToken == "" {
		return nil, errNoRefreshToken
	}
	id, err := a.resolveClient(ctx, d, rec, "")
	if err != nil {
		return nil, err
	}
	params := map[string][]string{
		"grant_type":    {"refresh_token"},
		"refresh_token": {rec.Token.RefreshToken},
		"resource":      {d.resource},
	}
	a.log.DebugContext(ctx, "oauth: refreshing the access token", "endpoint", d.as.TokenEndpoint)
	return a.postToken(ctx, d.as.TokenEndpoint, id, d.as.Issuer, params)
}
