package httpx

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Redacted replaces secret values in what RedactHeader, RedactURL and
// Scrubber render.
const Redacted = "[redacted]"

// publicHeaders are the headers whose values RedactHeader shows: protocol
// plumbing that never carries a credential. Everything else, including
// headers the engine does not know, is treated as secret.
var publicHeaders = map[string]bool{
	"Accept":               true,
	"Accept-Encoding":      true,
	"Cache-Control":        true,
	"Connection":           true,
	"Content-Length":       true,
	"Content-Type":         true,
	"Last-Event-Id":        true,
	"Mcp-Protocol-Version": true,
	"User-Agent":           true,
}

// IsPublicHeader reports whether RedactHeader shows the values of the
// header key (canonicalized first).
func IsPublicHeader(key string) bool { return publicHeaders[http.CanonicalHeaderKey(key)] }

// RedactHeader renders h for a log line, sorted by name, as
// "Name: value; Name: [redacted]". Only the values of well-known public
// headers (Accept, Content-Type, MCP-Protocol-Version, ...) are shown.
func RedactHeader(h http.Header) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, v := range h[k] {
			if b.Len() > 0 {
				b.WriteString("; ")
			}
			b.WriteString(k)
			b.WriteString(": ")
			if IsPublicHeader(k) {
				b.WriteString(v)
			} else {
				b.WriteString(Redacted)
			}
		}
	}
	return b.String()
}

// RedactURL renders a URL for logs and errors: scheme, host and path, with
// any userinfo dropped and the query and fragment replaced by a marker
// (query parameters often carry tokens). A string that does not parse is
// reported as "[invalid URL]", since it might hold anything.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "[invalid URL]"
	}
	return RedactParsedURL(u)
}

// RedactParsedURL is RedactURL for a parsed URL.
func RedactParsedURL(u *url.URL) string {
	c := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath, Opaque: u.Opaque}
	s := c.String()
	if u.RawQuery != "" || u.ForceQuery {
		s += "?" + Redacted
	}
	if u.Fragment != "" {
		s += "#" + Redacted
	}
	return s
}

// Scrubber removes known secret strings from text that may echo them: an
// error page that quotes the request's Authorization header, a proxy's
// diagnostic that repeats the URL. Build one with NewScrubber from
// everything the requests carry.
type Scrubber struct {
	secrets []string // longest first, so a token inside a longer value goes with it
}

// minSecretLen keeps very short values (a "1" API-key flag, "on") from
// scrubbing ordinary words out of every message.
const minSecretLen = 4

// NewScrubber collects the secrets of the given headers (the values of
// every header that is not public, and for "Scheme token" values the token
// alone) and of the URLs (userinfo password and username, query values).
func NewScrubber(h http.Header, urls ...string) *Scrubber {
	s := &Scrubber{}
	for k, vs := range h {
		if IsPublicHeader(k) {
			continue
		}
		for _, v := range vs {
			s.Add(v)
			if _, tok, ok := strings.Cut(v, " "); ok {
				s.Add(tok)
			}
		}
	}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			s.Add(raw)
			continue
		}
		if u.User != nil {
			s.Add(u.User.Username())
			if p, ok := u.User.Password(); ok {
				s.Add(p)
			}
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				s.Add(v)
			}
		}
		if u.RawQuery != "" {
			s.Add(u.RawQuery)
		}
	}
	return s
}

// Add registers one more secret (a session id learned later, for example).
// It is not safe to call concurrently with Scrub.
func (s *Scrubber) Add(secret string) {
	secret = strings.TrimSpace(secret)
	if len(secret) < minSecretLen || slices.Contains(s.secrets, secret) {
		return
	}
	i, _ := slices.BinarySearchFunc(s.secrets, secret, func(a, b string) int { return len(b) - len(a) })
	s.secrets = slices.Insert(s.secrets, i, secret)
}

// With returns a copy of s that also scrubs the given secrets.
func (s *Scrubber) With(secrets ...string) *Scrubber {
	c := &Scrubber{}
	if s != nil {
		c.secrets = slices.Clone(s.secrets)
	}
	for _, v := range secrets {
		c.Add(v)
	}
	return c
}

// Scrub returns text with every secret replaced by Redacted. A nil
// Scrubber returns text unchanged.
func (s *Scrubber) Scrub(text string) string {
	if s == nil {
		return text
	}
	for _, v := range s.secrets {
		if strings.Contains(text, v) {
			text = strings.ReplaceAll(text, v, Redacted)
		}
	}
	return text
}
