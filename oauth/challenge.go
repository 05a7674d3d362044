package oauth

import (
	"net/http"
	"strings"
)

// challenge is one WWW-Authenticate challenge (RFC 9110 §11.6.1) with
// its scheme lower-cased and its auth-param names lower-cased.
type challenge struct {
	Scheme string
	Params map[string]string
}

// bearerChallenge is what the MCP client reads from a Bearer challenge
// (RFC 6750 §3, RFC 9728 §5.1).
type bearerChallenge struct {
	ResourceMetadata string   // URL of the protected resource metadata
	Scopes           []string // scope the resource asks for
	Error            string   // invalid_token, insufficient_scope, ...
	ErrorDescription string
}

// parseBearerChallenge finds the Bearer challenge among all the
// WWW-Authenticate fields of h (a server may offer several schemes, in
// several fields or comma-separated in one). ok is false without one.
func parseBearerChallenge(h http.Header) (bc bearerChallenge, ok bool) {
	for _, field := range h.Values("WWW-Authenticate") {
		for _, c := range parseChallenges(field) {
			if c.Scheme != "bearer" {
				continue
			}
			bc = bearerChallenge{
				ResourceMetadata: c.Params["resource_metadata"],
				Error:            c.Params["error"],
				ErrorDescription: c.Params["error_description"],
			}
			if s := strings.Fields(c.Params["scope"]); len(s) > 0 {
				bc.Scopes = s
			}
			return bc, true
		}
	}
	return bearerChallenge{}, false
}

// parseChallenges parses one WWW-Authenticate field value:
//
//	challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
//	auth-param = token BWS "=" BWS ( token / quoted-string )
//
// It is lenient (a malformed part ends the parse, keeping what came
// before) because a challenge is a hint, never a reason to fail.
func parseChallenges(s string) []challenge {
	p := headerParser{s: s}
	var out []challenge
	for {
		p.skipSpaceAndCommas()
		scheme := p.token()
		if scheme == "" {
			return out
		}
		c := challenge{Scheme: strings.ToLower(scheme), Params: map[string]string{}}
		// Parameters follow until a token that is not followed by "="
		// (the next challenge's scheme) or the end.
		for {
			p.skipSpaceAndCommas()
			mark := p.i
			name := p.token()
			if name == "" {
				break
			}
			p.skipSpace()
			if !p.consume('=') {
				p.i = mark // a new scheme: let the outer loop read it
				break
			}
			if p.peek() == '=' || p.peek() == ',' || p.eof() {
				// token68 ("Basic abc==" style): no params to keep.
				for p.consume('=') {
				}
				continue
			}
			p.skipSpace()
			var val string
			if p.peek() == '"' {
				val = p.quoted()
			} else {
				val = p.token()
			}
			c.Params[strings.ToLower(name)] = val
		}
		out = append(out, c)
		if p.eof() {
			return out
		}
	}
}

// headerParser walks an HTTP header value.
type headerParser struct {
	s string
	i int
}

func (p *headerParser) eof() bool { return p.i >= len(p.s) }

func (p *headerParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.i]
}

func (p *headerParser) consume(b byte) bool {
	if p.peek() == b && !p.eof() {
		p.i++
		return true
	}
	return false
}

func (p *headerParser) skipSpace() {
	for !p.eof() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *headerParser) skipSpaceAndCommas() {
	for !p.eof() && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == ',') {
		p.i++
	}
}

// token reads an RFC 9110 token (tchar run; also the token68 characters
// '/' '+' so that a token68 value is skipped as one piece).
func (p *headerParser) token() string {
	start := p.i
	for !p.eof() && isTokenChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// quoted reads a quoted-string, undoing quoted-pair escapes. An
// unterminated string runs to the end of the value.
func (p *headerParser) quoted() string {
	p.i++ // opening quote
	var b strings.Builder
	for !p.eof() {
		c := p.s[p.i]
		p.i++
		switch c {
		case '\\':
			if !p.eof() {
				b.WriteByte(p.s[p.i])
				p.i++
			}
		case '"':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~/", c) >= 0
}
