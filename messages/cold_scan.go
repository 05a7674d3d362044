package messages

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// The helpers below decode the messages a session receives once (the
// initialize and server/discover answers) with the frame scanner instead
// of sonic. sonic compiles a decoder to machine code for each Go type on
// its first use, which costs ~10 ms for InitializeResult and its
// capability types: more than the rest of a session's first call. They
// scan a copy of the answer, made once, which the decoded strings alias
// (what a handshake learns is kept for the session's life, and the
// transport may reuse the answer's buffer), and refuse anything they do
// not mirror exactly, leaving it to sonic, which stays the reference (see
// the fuzz tests).

// eachMember reads the object at b[i] == '{' and calls member for each
// member with its name and the index where its value starts; member
// returns the index just past the value. It refuses an escaped name
// (sonic unescapes it and might match a known name) and a name given
// twice (whether sonic keeps the first value, the last or a merge of both
// is an implementation detail), which it can tell for up to
// maxColdMembers members: an object with more is refused too. It returns
// the index just past the closing brace.
func eachMember(b []byte, i int, member func(name []byte, i int) (int, bool)) (int, bool) {
	var names [maxColdMembers][]byte
	n := 0
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' || n == maxColdMembers {
			return 0, false
		}
		end, escaped, ok := scanString(b, i)
		if !ok || escaped {
			return 0, false
		}
		name := b[i+1 : end-1]
		for _, seen := range names[:n] {
			if string(seen) == string(name) {
				return 0, false
			}
		}
		names[n] = name
		n++
		if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
			return 0, false
		}
		if i, ok = member(name, skipSpace(b, i+1)); !ok {
			return 0, false
		}
		var done bool
		if i, done, ok = afterElement(b, i, '}'); !ok || done {
			return i, ok
		}
	}
}

// maxColdMembers bounds the members of one object eachMember takes: the
// handshake's objects have a handful.
const maxColdMembers = 32

// nullOrOpening tells how the value at b[i] starts: null (end is past
// it, ok), the byte open of the kind the caller decodes (ok, not null), or
// anything else (not ok). Callers return at null or a mismatch:
//
//	if end, null, ok := nullOrOpening(b, i, '{'); null || !ok {
//		return end, ok
//	}
func nullOrOpening(b []byte, i int, open byte) (end int, null, ok bool) {
	if end, ok := scanLiteral(b, i, "null"); ok {
		return end, true, true
	}
	return 0, false, i < len(b) && b[i] == open
}

// coldString decodes the string or null at b[i] into *dst (null leaves it
// as it is, as sonic does) and returns the index past it. A string without
// escapes aliases b, which the callers own (a copy of the answer, made
// once: sonic's strings alias its copy of the input the same way).
func coldString(b []byte, i int, dst *string) (int, bool) {
	if end, null, ok := nullOrOpening(b, i, '"'); null || !ok {
		return end, ok
	}
	end, escaped, ok := scanString(b, i)
	if !ok {
		return 0, false
	}
	body := b[i+1 : end-1]
	if !escaped {
		*dst = unsafe.String(unsafe.SliceData(body), len(body))
		return end, true
	}
	s, ok := unescape(body)
	if !ok {
		return 0, false
	}
	*dst = s
	return end, true
}

// coldBool decodes true, false or null (which leaves *dst as it is).
func coldBool(b []byte, i int, dst *bool) (int, bool) {
	if end, ok := scanLiteral(b, i, "true"); ok {
		*dst = true
		return end, true
	}
	if end, ok := scanLiteral(b, i, "false"); ok {
		*dst = false
		return end, true
	}
	return scanLiteral(b, i, "null")
}

// coldObject decodes the object or null at b[i] into the pointer *dst:
// null leaves it nil; an object gets a new T whose members decode fills.
// decode gets b rather than closing over it, so that the functions passed
// capture nothing and cost no allocation.
func coldObject[T any](b []byte, i int, dst **T, decode func(v *T, b, name []byte, i int) (int, bool)) (int, bool) {
	if end, null, ok := nullOrOpening(b, i, '{'); null || !ok {
		return end, ok
	}
	v := new(T)
	end, ok := eachMember(b, i, func(name []byte, i int) (int, bool) { return decode(v, b, name, i) })
	if !ok {
		return 0, false
	}
	*dst = v
	return end, true
}

// skipMember validates and skips a member's value, as sonic skips a
// member its type has no field for.
func skipMember(b []byte, i int) (int, bool) { return skipValue(b, i) }

// noOptions is the decode function of coldObject for the types without
// members: every member is skipped.
func noOptions[T any](_ *T, b, _ []byte, i int) (int, bool) { return skipMember(b, i) }

// flag decodes the boolean member want into dst when name is want, and
// skips any other.
func flag(b []byte, i int, name []byte, want string, dst *bool) (int, bool) {
	if string(name) != want {
		return skipMember(b, i)
	}
	return coldBool(b, i, dst)
}

// bySonic decodes the value at b[i] into *dst with sonic: for members
// whose types are rare in a handshake (experimental, _meta, icons,
// tasks), so that their decoders are compiled only by the servers that
// send them. Each member is decoded once (eachMember refuses repeats), so
// this gives what the member would have given decoded in place. The value
// is decoded into a variable of its own, which only this call moves to
// the heap (not the caller's whole result).
func bySonic[T any](b []byte, i int, dst *T) (int, bool) {
	end, ok := skipValue(b, i)
	if !ok {
		return 0, false
	}
	var v T
	if Unmarshal(b[i:end], &v) != nil {
		return 0, false
	}
	*dst = v
	return end, true
}

// unescape decodes the body of a string holding escapes, already
// validated by scanString. An escaped surrogate that is not half of a pair
// is refused: sonic turns it into U+FFFD, which is not worth mirroring.
func unescape(body []byte) (string, bool) {
	out := make([]byte, 0, len(body))
	for {
		k := bytes.IndexByte(body, '\\')
		if k < 0 {
			return string(append(out, body...)), true
		}
		out = append(out, body[:k]...)
		body = body[k:]
		c := body[1]
		switch c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(body[2:6])
			if !utf16.IsSurrogate(r) {
				out = utf8.AppendRune(out, r)
				body = body[6:]
				continue
			}
			if len(body) < 12 || body[6] != '\\' || body[7] != 'u' || !isHex(body[8]) || !isHex(body[9]) || !isHex(body[10]) || !isHex(body[11]) {
				return "", false
			}
			pair := utf16.DecodeRune(r, hex4(body[8:12]))
			if pair == utf8.RuneError {
				return "", false
			}
			out = utf8.AppendRune(out, pair)
			body = body[12:]
			continue
		}
		body = body[2:]
	}
}

// hex4 is the value of four hex digits scanString has checked.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h[:4] {
		switch {
		case c >= 'a':
			c -= 'a' - 10
		case c >= 'A':
			c -= 'A' - 10
		default:
			c -= '0'
		}
		r = r<<4 | rune(c)
	}
	return r
}
