package h2stream

import "golang.org/x/net/http2/hpack"

// hpackField is one header field; a value that is a credential is never
// indexed, so that it does not sit in either side's dynamic table.
func hpackField(name, value string) hpack.HeaderField {
	switch name {
	case "authorization", "proxy-authorization", "cookie":
		return hpack.HeaderField{Name: name, Value: value, Sensitive: true}
	}
	return hpack.HeaderField{Name: name, Value: value}
}
