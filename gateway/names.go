package gateway

import (
	"context"
	"sort"
	"strings"
)

// byPrefix orders servers for name resolution: longest prefix first, so
// that "a__b__" claims "a__b__x" before "a__" does, and a server without a
// prefix comes last, taking whatever no prefix claimed.
func byPrefix(servers []*upstream) []*upstream {
	out := append([]*upstream(nil), servers...)
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].prefix) > len(out[j].prefix) })
	return out
}

// resolveName maps a tool or prompt name of the aggregated endpoint to its
// server and the server's own name for it.
func (g *Gateway) resolveName(name string) (*upstream, string, bool) {
	for _, u := range g.byPrefix {
		if rest, ok := strings.CutPrefix(name, u.prefix); ok && rest != "" {
			return u, rest, true
		}
	}
	return nil, "", false
}

// resolveURI finds the server of a resource URI: the first server (by
// name) that lists it, else the first whose resource templates match it,
// else the only available server that offers resources at all. URIs are
// not renamed (a tool result may hold a URI to read later), so when two
// servers list the same URI only the first can be reached through it.
func (g *Gateway) resolveURI(ctx context.Context, uri string) (*upstream, bool) {
	var byTemplate *upstream
	var offering []*upstream
	for _, u := range g.order {
		if !u.available.Load() || !u.offersResources() {
			continue
		}
		offering = append(offering, u)
		if items, err := u.list(ctx, listResources); err == nil {
			for i := range items {
				if items[i].uri == uri {
					return u, true
				}
			}
		}
		if byTemplate != nil {
			continue
		}
		if items, err := u.list(ctx, listTemplates); err == nil {
			for i := range items {
				if items[i].tmpl.match(uri) {
					byTemplate = u
					break
				}
			}
		}
	}
	switch {
	case byTemplate != nil:
		return byTemplate, true
	case len(offering) == 1:
		return offering[0], true
	}
	return nil, false
}

// offersResources reports whether the server declared resources (as seen
// by any member that completed a handshake).
func (u *upstream) offersResources() bool {
	for _, m := range u.pool.members {
		if m.s.Capabilities().Resources != nil {
			return true
		}
	}
	return false
}
