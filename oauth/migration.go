package oauth

import (
	"context"
	"fmt"
)

// leaveAuthorizationServer discards what was obtained from the
// authorization server from, which the server no longer names (it names
// to): credentials are bound to the authorization server that issued
// them (SEP-2352), so the client registration, the tokens and their
// stored record are dropped, whether or not authorizing at the new
// server then succeeds. A configured client id is bound too: it was
// used at from, so presenting it (and its secret or key) to to would
// hand one server's credentials to another; that is refused, with what
// to configure instead.
func (a *authorizer) leaveAuthorizationServer(ctx context.Context, from, to string) error {
	a.log.InfoContext(ctx, "oauth: the server moved to another authorization server; discarding the old one's credentials",
		"from", from, "to", to)
	if err := a.store.Delete(ctx, a.storeKey); err != nil {
		if ierr := insecureStore(err); ierr != nil {
			return ierr
		}
		a.log.WarnContext(ctx, "oauth: deleting the old authorization server's token failed", "error", err)
	}
	a.mu.Lock()
	a.rec = nil
	a.gen++
	a.mu.Unlock()
	if a.cfg.ClientID != "" {
		return unauthorized(fmt.Sprintf("the server moved from authorization server %q to %q, and the configured client id %q belongs to the old one; configure a client of %q", from, to, a.cfg.ClientID, to), nil)
	}
	return nil
}
