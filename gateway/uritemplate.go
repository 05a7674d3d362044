package gateway

import (
	"regexp"
	"strings"
)

// uriTemplate matches URIs against an RFC 6570 template, for routing a
// resources/read of a URI no server listed to the server whose template
// produces it. Matching is approximate in the permissive direction that
// routing needs: a simple expression ({id}) matches one path segment, a
// reserved or fragment one ({+path}, {#frag}) anything, and the other
// operators ({/a}, {?q}, {.ext}, {;p}, {&q}) any run of characters that
// starts with their prefix.
type uriTemplate struct {
	re *regexp.Regexp
}

func parseURITemplate(t string) *uriTemplate {
	if t == "" {
		return nil
	}
	var b strings.Builder
	b.WriteString("^")
	for t != "" {
		open := strings.IndexByte(t, '{')
		if open < 0 {
			b.WriteString(regexp.QuoteMeta(t))
			break
		}
		b.WriteString(regexp.QuoteMeta(t[:open]))
		end := strings.IndexByte(t[open:], '}')
		if end < 0 {
			return nil // malformed: routing by listing only
		}
		expr := t[open+1 : open+end]
		t = t[open+end+1:]
		switch {
		case expr == "":
			return nil
		case expr[0] == '+' || expr[0] == '#':
			b.WriteString(".*")
		case strings.ContainsRune("/?.;&", rune(expr[0])):
			b.WriteString(".*")
		default:
			b.WriteString("[^/?#]*")
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil
	}
	return &uriTemplate{re: re}
}

func (u *uriTemplate) match(uri string) bool { return u != nil && u.re.MatchString(uri) }
