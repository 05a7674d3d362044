package oauth

import (
	"fmt"
	"net/url"
	"strings"
)

// canonicalResource returns the canonical URI of an MCP server (MCP
// authorization, "Canonical Server URI"; RFC 8707 §2): lower-case scheme
// and host, no fragment, no trailing slash on the path. It is the
// resource parameter when the server publishes no metadata, and the
// first part of the store key.
func canonicalResource(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("oauth: server URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("oauth: server URL %q is not an absolute http(s) URL", raw)
	}
	c := *u
	c.Scheme = strings.ToLower(c.Scheme)
	c.Host = strings.ToLower(c.Host)
	c.Fragment, c.RawFragment = "", ""
	c.User = nil
	if c.Path != "/" {
		c.Path = strings.TrimSuffix(c.Path, "/")
	} else {
		c.Path = ""
	}
	c.RawPath = ""
	return &c, nil
}

// origin is scheme://host of u.
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// resourceCovers reports whether the protected resource identifier
// resource (from RFC 9728 metadata) designates the server at server:
// same scheme and host, and a path equal to or a path-segment prefix of
// the server's (a resource "https://h" covers "https://h/mcp"). Anything
// else is metadata for another resource, which a client must refuse
// (RFC 9728 §3.3) so as not to hand a token for one server to another.
func resourceCovers(resource string, server *url.URL) bool {
	r, err := canonicalResource(resource)
	if err != nil || r.Scheme != server.Scheme || r.Host != server.Host {
		return false
	}
	if r.Path == "" || r.Path == server.Path {
		return true
	}
	return strings.HasPrefix(server.Path, r.Path+"/")
}

// sameOrigin reports whether u is served by the same origin as server:
// the Transport only ever attaches the server's token to such requests.
func sameOrigin(u, server *url.URL) bool {
	return strings.EqualFold(u.Scheme, server.Scheme) && strings.EqualFold(u.Host, server.Host)
}
