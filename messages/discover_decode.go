package messages

// DecodeDiscoverResult decodes a server/discover answer exactly as
// Unmarshal(b, &r) into a zero r would, by the frame scanner when it
// takes the answer (see DecodeInitializeResult): a 2026-07-28 session's
// handshake then does not wait for sonic to compile DiscoverResult's
// decoder.
func DecodeDiscoverResult(b []byte) (DiscoverResult, error) {
	var r DiscoverResult
	if scanDiscoverResult(b, &r) {
		return r, nil
	}
	r = DiscoverResult{}
	err := Unmarshal(b, &r)
	return r, err
}

// scanDiscoverResult fills r from b when the scanner takes all of b.
func scanDiscoverResult(b []byte, r *DiscoverResult) bool {
	b = trimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	var seen once
	end, ok := eachMember(b, 0, func(name []byte, i int) (int, bool) {
		switch string(name) {
		case "resultType":
			if seen.first(0) {
				return coldString(b, i, &r.ResultType)
			}
		case "supportedVersions":
			if seen.first(1) {
				return coldStrings(b, i, &r.SupportedVersions)
			}
		case "capabilities":
			if seen.first(2) {
				return scanServerCapabilities(b, i, &r.Capabilities)
			}
		case "instructions":
			if seen.first(3) {
				return coldString(b, i, &r.Instructions)
			}
		case "ttlMs":
			if seen.first(4) {
				return coldInt(b, i, &r.TTLMs)
			}
		case "cacheScope":
			if seen.first(5) {
				return coldString(b, i, &r.CacheScope)
			}
		case "_meta":
			if seen.first(6) {
				return coldObject(b, i, &r.Meta, func(m *ResultMeta, seen *once, name []byte, i int) (int, bool) {
					if string(name) != "io.modelcontextprotocol/serverInfo" {
						return skipMember(b, i)
					}
					if !seen.first(0) {
						return 0, false
					}
					if end, ok := scanLiteral(b, i, "null"); ok {
						return end, true
					}
					m.ServerInfo = new(Implementation)
					return scanImplementation(b, i, m.ServerInfo)
				})
			}
		default:
			return skipMember(b, i)
		}
		return 0, false
	})
	return ok && end == len(b)
}

// coldStrings decodes an array of strings (or null, which leaves *dst
// nil) into a new slice.
func coldStrings(b []byte, i int, dst *[]string) (int, bool) {
	if end, ok := scanLiteral(b, i, "null"); ok {
		return end, true
	}
	if i >= len(b) || b[i] != '[' {
		return 0, false
	}
	out := []string{}
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
		if i = skipSpace(b, end); i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			*dst = out
			return i + 1, true
		default:
			return 0, false
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
