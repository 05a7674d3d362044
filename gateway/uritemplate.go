package gateway

import "github.com/yosida95/uritemplate/v3"

// uriTemplate matches URIs against an RFC 6570 template, for routing a
// resources/read of a URI no server listed to the server whose template
// produces it (the template's expansions, by yosida95/uritemplate, the
// library the Go SDKs use). A template that does not parse routes nothing:
// such a server is reached by the URIs it lists only.
type uriTemplate struct {
	t *uritemplate.Template
}

func parseURITemplate(s string) *uriTemplate {
	if s == "" {
		return nil
	}
	t, err := uritemplate.New(s)
	if err != nil {
		return nil
	}
	return &uriTemplate{t: t}
}

func (u *uriTemplate) match(uri string) bool { return u != nil && u.t.Match(uri) != nil }
