package oauth

import (
	"context"
	"fmt"
)

// leaveAuthorizationServer discards what was obtained from old's
// authorization server, which the server no longer names (it names to):
// credentials are bound to the authorization server that issued them
// (SEP-2352), so the tokens are dropped, and with them a dynamic
// registration and the stored record, whether or not authorizing at the
// new server then succeeds.
//
// A configured client id is bound too: it was used at the old server, so
// presenting it (and its secret or key) to the new one would hand one
// server's credentials to another. That is refused, now and on every
// later attempt: a record without tokens keeps the binding (in the store
// too, for later processes) until the configuration names another client
// or Logout forgets it.
func (a *authorizer) leaveAuthorizationServer(ctx context.Context, old *Record, to string) error {
	a.log.InfoContext(ctx, "oauth: the server moved to another authorization server; discarding the old one's credentials",
		"from", old.Issuer, "to", to)
	var kept *Record
	var err error
	if a.cfg.ClientID != "" {
		kept = &Record{Resource: old.Resource, Issuer: old.Issuer, ClientID: old.ClientID,
			TokenEndpointAuthMethod: old.TokenEndpointAuthMethod}
		err = a.store.Save(ctx, a.storeKey, kept)
	} else {
		err = a.store.Delete(ctx, a.storeKey)
	}
	if err != nil {
		if ierr := insecureStore(err); ierr != nil {
			return ierr
		}
		a.log.WarnContext(ctx, "oauth: dropping the old authorization server's token from the store failed", "error", err)
	}
	a.mu.Lock()
	a.rec = kept
	a.gen++
	a.mu.Unlock()
	if kept != nil {
		return unauthorized(fmt.Sprintf("the server moved from authorization server %q to %q, and the configured client id %q was used at the old one; configure a client of the new one (or log out to try this one there)", old.Issuer, to, a.cfg.ClientID), nil)
	}
	return nil
}
