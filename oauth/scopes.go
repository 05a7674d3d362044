package oauth

import "slices"

const offlineAccess = "offline_access"

// selectScopes chooses the scope of a new authorization (MCP "Scope
// Selection Strategy"): the configured scopes, else the challenge's scope,
// else the protected resource's scopes_supported, else none (the scope
// parameter is then omitted). The scopes already held are kept, and a
// step-up asks for their union with the challenge's. offline_access is
// added when the authorization server lists it, so that a refresh token
// comes back (SEP-2207), never when it does not.
func (a *authorizer) selectScopes(d *discovery, challenged, held []string, stepUp bool) []string {
	var s []string
	switch {
	case stepUp:
		s = challenged
	case len(a.cfg.Scopes) > 0:
		s = a.cfg.Scopes
	case len(challenged) > 0:
		s = challenged
	case len(d.challengeScopes) > 0:
		s = d.challengeScopes
	case d.prm != nil && len(d.prm.ScopesSupported) > 0:
		s = d.prm.ScopesSupported
	}
	out := union(held, s)
	if a.grant == GrantAuthorizationCode && len(out) > 0 &&
		slices.Contains(d.as.ScopesSupported, offlineAccess) && !slices.Contains(out, offlineAccess) {
		out = append(out, offlineAccess)
	}
	return out
}

// union is a then the members of b not in a, in order, without duplicates.
func union(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	for _, s := range slices.Concat(a, b) {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
