package messages

// MarshalOnce encodes what a session sends once, in its handshake, giving
// exactly Marshal's bytes. InitializeParams, ClientCapabilities and
// Implementation (a 2026-07-28 session's _meta), as the engine builds
// them, are appended by hand: Marshal would first have sonic compile
// encoders for them (~3 ms of a process's first Connect) to use them once
// per session. Anything else, and these with members that are rare in a
// handshake, goes through Marshal.
func MarshalOnce(v any) ([]byte, error) {
	var b []byte
	ok := false
	switch p := v.(type) {
	case *InitializeParams:
		if p != nil {
			b, ok = appendInitializeParams(make([]byte, 0, 256), p)
		}
	case *ClientCapabilities:
		if p != nil {
			b, ok = appendClientCapabilities(make([]byte, 0, 128), p)
		}
	case *Implementation:
		if p != nil {
			b, ok = appendImplementation(make([]byte, 0, 64), p)
		}
	}
	if ok {
		return b, nil
	}
	return Marshal(v)
}

// appendInitializeParams appends p as the outgoing codec would, or
// reports false when p holds what it leaves to sonic: experimental
// capabilities, tasks, icons, _meta, or a string that is not plain ASCII
// (sonic's escaping and its replacement of invalid UTF-8 are not
// mirrored).
func appendInitializeParams(b []byte, p *InitializeParams) ([]byte, bool) {
	if len(p.Meta) > 0 || !plainASCII(p.ProtocolVersion) {
		return nil, false
	}
	b = append(b, `{"protocolVersion":"`...)
	b = append(b, p.ProtocolVersion...)
	b = append(b, `","capabilities":`...)
	b, ok := appendClientCapabilities(b, &p.Capabilities)
	if !ok {
		return nil, false
	}
	b = append(b, `,"clientInfo":`...)
	if b, ok = appendImplementation(b, &p.ClientInfo); !ok {
		return nil, false
	}
	return append(b, '}'), true
}

// appendClientCapabilities appends c as the outgoing codec would, or
// reports false for experimental capabilities and tasks.
func appendClientCapabilities(b []byte, c *ClientCapabilities) ([]byte, bool) {
	if len(c.Experimental) > 0 || c.Tasks != nil {
		return nil, false
	}
	b = append(b, '{')
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
	return append(b, '}'), true
}

// appendImplementation appends info as the outgoing codec would, or
// reports false for icons and strings that are not plain ASCII.
func appendImplementation(b []byte, info *Implementation) ([]byte, bool) {
	if len(info.Icons) > 0 {
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
	b = append(b, `{"name":`...)
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
	return append(b, '}'), ok
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
