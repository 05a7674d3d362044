package messages

// MarshalOnce encodes params a session sends once, in its handshake,
// giving exactly Marshal's bytes. InitializeParams, as the engine builds
// it, is appended by hand: Marshal would first have sonic compile an
// encoder for it and the capability types (~3 ms of a process's first
// Connect) to use it once per session. Anything else, and an
// InitializeParams with members that are rare in a handshake, goes
// through Marshal.
func MarshalOnce(v any) ([]byte, error) {
	if p, ok := v.(*InitializeParams); ok && p != nil {
		if b, ok := appendInitializeParams(make([]byte, 0, 256), p); ok {
			return b, nil
		}
	}
	return Marshal(v)
}

// appendInitializeParams appends p as the outgoing codec would, or
// reports false when p holds what it leaves to sonic: experimental
// capabilities, tasks, icons, _meta, or a string that is not plain ASCII
// (sonic's escaping and its replacement of invalid UTF-8 are not
// mirrored).
func appendInitializeParams(b []byte, p *InitializeParams) ([]byte, bool) {
	c, info := &p.Capabilities, &p.ClientInfo
	if len(c.Experimental) > 0 || c.Tasks != nil || len(info.Icons) > 0 || len(p.Meta) > 0 {
		return nil, false
	}
	ok := true
	str := func(s string) {
		if !plainASCII(s) {
			ok = false
		}
		b = append(b, '"')
		b = append(b, s...)
		b = append(b, '"')
	}
	b = append(b, `{"protocolVersion":`...)
	str(p.ProtocolVersion)
	b = append(b, `,"capabilities":{`...)
	first := true
	member := func(name string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":`...)
	}
	if c.Roots != nil {
		member("roots")
		if c.Roots.ListChanged {
			b = append(b, `{"listChanged":true}`...)
		} else {
			b = append(b, `{}`...)
		}
	}
	if s := c.Sampling; s != nil {
		member("sampling")
		b = appendPresence(b, "context", s.Context != nil, "tools", s.Tools != nil)
	}
	if e := c.Elicitation; e != nil {
		member("elicitation")
		b = appendPresence(b, "form", e.Form != nil, "url", e.URL != nil)
	}
	b = append(b, `},"clientInfo":{"name":`...)
	str(info.Name)
	if info.Title != "" {
		b = append(b, `,"title":`...)
		str(info.Title)
	}
	b = append(b, `,"version":`...)
	str(info.Version)
	if info.Description != "" {
		b = append(b, `,"description":`...)
		str(info.Description)
	}
	if info.WebsiteURL != "" {
		b = append(b, `,"websiteUrl":`...)
		str(info.WebsiteURL)
	}
	b = append(b, "}}"...)
	return b, ok
}

// appendPresence appends an object of up to two empty-object members,
// each present when its flag says so: {"a":{},"b":{}}, {"b":{}}, {}.
func appendPresence(b []byte, a string, hasA bool, c string, hasC bool) []byte {
	b = append(b, '{')
	if hasA {
		b = append(b, '"')
		b = append(b, a...)
		b = append(b, `":{}`...)
	}
	if hasC {
		if hasA {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, c...)
		b = append(b, `":{}`...)
	}
	return append(b, '}')
}

// plainASCII reports a string every encoder writes as it is: printable
// ASCII without a quote or a backslash.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if !plainByte[s[i]] {
			return false
		}
	}
	return true
}
