package messages

import "bytes"

// DecodeDiscoverResult decodes a server/discover answer exactly as
// Unmarshal(b, &r) into a zero r would, by the frame scanner when it
// takes the answer (see DecodeInitializeResult): a 2026-07-28 session's
// handshake then does not wait for sonic to compile DiscoverResult's
// decoder.
func DecodeDiscoverResult(b []byte) (DiscoverResult, error) {
	var r DiscoverResult
	if scanDiscoverResult(bytes.Clone(b), &r) {
		return r, nil
	}
	// A variable of its own: taking r's address for sonic would move r
	// to the heap on the scanner's path too.
	var slow DiscoverResult
	err := Unmarshal(b, &slow)
	return slow, err
}

// scanDiscoverResult fills r from b when the scanner takes all of b.
func scanDiscoverResult(b []byte, r *DiscoverResult) bool {
	b = trimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	end, ok := eachMember(b, 0, func(name []byte, i int) (int, bool) {
		switch string(name) {
		case "resultType":
			return coldString(b, i, &r.ResultType)
		case "supportedVersions":
			return coldStrings(b, i, &r.SupportedVersions)
		case "capabilities":
			return scanServerCapabilities(b, i, &r.Capabilities)
		case "instructions":
			return coldString(b, i, &r.Instructions)
		case "ttlMs":
			return coldInt(b, i, &r.TTLMs)
		case "cacheScope":
			return coldString(b, i, &r.CacheScope)
		case "_meta":
			return coldObject(b, i, &r.Meta, func(m *ResultMeta, b, name []byte, i int) (int, bool) {
				if string(name) != "io.modelcontextprotocol/serverInfo" {
					return skipMember(b, i)
				}
				if end, ok := scanLiteral(b, i, "null"); ok {
					return end, true
				}
				m.ServerInfo = new(Implementation)
				return scanImplementation(b, i, m.ServerInfo)
			})
		}
		return skipMember(b, i)
	})
	return ok && end == len(b)
}

// coldStrings decodes an array of strings (or null, which leaves *dst
// nil) into a new slice.
func coldStrings(b []byte, i int, dst *[]string) (int, bool) {
	if end, null, ok := nullOrOpening(b, i, '['); null || !ok {
		return end, ok
	}
	out := make([]string, 0, 4)
	if i = skipSpace(b, i+1); i < len(b) && b[i] == ']' {
		*dst = out
		return i + 1, true
	}
	for {
		var s string
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		end, ok := coldString(b, i, &s)
		if !ok {
			return 0, false
		}
		out = append(out, s)
		var done bool
		if i, done, ok = afterElement(b, end, ']'); !ok {
			return 0, false
		}
		if done {
			*dst = out
			return i, true
		}
	}
}

// coldInt decodes an integer within int64 (or null, which leaves *dst as
// it is); fractions and exponents are left to sonic.
func coldInt(b []byte, i int, dst *int64) (int, bool) {
	if end, ok := scanLiteral(b, i, "null"); ok {
		return end, true
	}
	end, ok := scanNumber(b, i)
	if !ok {
		return 0, false
	}
	n, ok := parseJSONInt(b[i:end])
	if !ok {
		return 0, false
	}
	*dst = n
	return end, true
}
