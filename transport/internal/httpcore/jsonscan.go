package httpcore

// A minimal scanner over JSON the engine itself encoded, to read a few
// members of a request's params without decoding them (which costs a
// sonic decoder, a copy of the input and the strings). Anything it does
// not expect (an escaped member name, malformed input) makes it report
// false, and the caller falls back to a real decode.

// eachMember calls fn with the raw name (between its quotes) and the raw
// value of every member of the JSON object b, in order, until fn returns
// false. It reports false when b is not an object it can scan.
func eachMember(b []byte, fn func(name, value []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		end, escaped := stringEnd(b, i)
		if end < 0 || escaped {
			return false // an escaped name could spell one we look for
		}
		name := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		vend := valueEnd(b, i)
		if vend < 0 {
			return false
		}
		if !fn(name, b[i:vend]) {
			return true
		}
		i = skipSpace(b, vend)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == '}':
			return true
		default:
			return false
		}
	}
}

// plainString returns the contents of the JSON string value v when it
// holds no escape; ok is false otherwise (not a string, or escaped).
func plainString(v []byte) (s []byte, ok bool) {
	if len(v) < 2 || v[0] != '"' {
		return nil, false
	}
	end, escaped := stringEnd(v, 0)
	if end != len(v) || escaped {
		return nil, false
	}
	return v[1 : len(v)-1], true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string starting at b[i] (a
// quote), and whether it holds an escape; -1 when it is not closed.
func stringEnd(b []byte, i int) (end int, escaped bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return -1, escaped
}

// valueEnd returns the index just past the value starting at b[i], or -1.
// Nested objects and arrays are matched by depth; strings inside them are
// skipped whole, so brackets in strings do not count.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end, _ := stringEnd(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := stringEnd(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}
