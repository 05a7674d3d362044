package messages

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// The scanner below is the fast path's JSON validator. It accepts only
// plain RFC 8259 text: every string valid UTF-8 without raw control
// characters, every number and literal well formed, nesting bounded. It
// never allocates and never recurses. Whatever it refuses is handed to the
// sonic path, which then decides (and may well accept), so being stricter
// than sonic is always safe; being laxer never is.

// maxScanDepth bounds nesting below one member value. sonic refuses
// nesting deeper than 4096 levels (native MAX_RECURSE); staying far below
// that keeps the two from ever disagreeing at the edge, and the fixed-size
// bit stack keeps the scanner allocation-free. Deeper input goes to sonic.
const maxScanDepth = 1024

// span is a value's [start, end) in the scanned buffer. A value is never
// at offset 0 (it follows at least "{" and a member name), so end == 0
// means absent.
type span struct{ start, end int }

func (s span) present() bool { return s.end > 0 }

// raw returns the spanned bytes, nil when absent. The capacity is cut to
// the length so that a caller appending to the RawMessage can never write
// into the rest of the frame.
func (s span) raw(b []byte) RawMessage {
	if !s.present() {
		return nil
	}
	return b[s.start:s.end:s.end]
}

// scanMembers reads the object starting at b[i] == '{'. For each member
// whose name is in names it records the value's span in the same position
// of spans; other members are validated and skipped. It refuses (ok false)
// a member name with an escape (sonic would unescape it and might match a
// known name) and a known name given twice (which value sonic keeps is an
// implementation detail, so such frames go to sonic). It returns the index
// just past the closing brace.
func scanMembers(b []byte, i int, names []string, spans []span) (int, bool) {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		end, escaped, ok := scanString(b, i)
		if !ok || escaped {
			return 0, false
		}
		name := b[i+1 : end-1]
		if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
			return 0, false
		}
		start := skipSpace(b, i+1)
		if i, ok = skipValue(b, start); !ok {
			return 0, false
		}
		for k, n := range names {
			if string(name) == n {
				if spans[k].present() {
					return 0, false
				}
				spans[k] = span{start, i}
				break
			}
		}
		var done bool
		if i, done, ok = afterElement(b, i, '}'); !ok || done {
			return i, ok
		}
	}
}

// skipValue validates the value starting at b[i] (no leading space) and
// returns the index just past it. Containers are tracked on a bit stack
// (1: object, 0: array) instead of by recursion.
func skipValue(b []byte, i int) (int, bool) {
	var objects [maxScanDepth / 64]uint64
	depth := 0
	ok := false
	for {
		// A value starts at i.
		if i >= len(b) {
			return 0, false
		}
		switch c := b[i]; c {
		case '{', '[':
			if depth == maxScanDepth {
				return 0, false
			}
			if c == '{' {
				objects[depth/64] |= 1 << (depth % 64)
			} else {
				objects[depth/64] &^= 1 << (depth % 64)
			}
			depth++
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == c+2 { // '{'+2 == '}', '['+2 == ']'
				i, depth, ok = i+1, depth-1, true
				break
			}
			if c == '[' {
				continue
			}
			if i, ok = scanMemberName(b, i); !ok {
				return 0, false
			}
			continue
		case '"':
			i, _, ok = scanString(b, i)
		case 't':
			i, ok = scanLiteral(b, i, "true")
		case 'f':
			i, ok = scanLiteral(b, i, "false")
		case 'n':
			i, ok = scanLiteral(b, i, "null")
		default:
			i, ok = scanNumber(b, i)
		}
		if !ok {
			return 0, false
		}
		// A value ended at i: close containers until the next value.
		for {
			if depth == 0 {
				return i, true
			}
			if i = skipSpace(b, i); i >= len(b) {
				return 0, false
			}
			level := depth - 1
			inObject := objects[level/64]&(1<<(level%64)) != 0
			c := b[i]
			if c == ',' {
				i = skipSpace(b, i+1)
				if inObject {
					if i, ok = scanMemberName(b, i); !ok {
						return 0, false
					}
				}
				break
			}
			if (inObject && c == '}') || (!inObject && c == ']') {
				i, depth = i+1, depth-1
				continue
			}
			return 0, false
		}
	}
}

// scanMemberName reads `"name" :` at b[i] and returns where the value
// starts.
func scanMemberName(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	end, _, ok := scanString(b, i)
	if !ok {
		return 0, false
	}
	if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
		return 0, false
	}
	return skipSpace(b, i+1), true
}

// plainByte marks the bytes a string may hold as they are: printable
// ASCII other than the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// specialBytes returns a word with the high bit set in (at least) the
// lowest byte of x that is not plainByte, zero when all eight are plain.
// Bytes above the first special one may be flagged falsely (borrows
// propagate upwards), which is why only the lowest flag is used.
func specialBytes(x uint64) uint64 {
	t := (x - 0x20*ones) & ^x // a byte below 0x20
	q := x ^ ('"' * ones)
	t |= (q - ones) & ^q // a quote
	s := x ^ ('\\' * ones)
	t |= (s - ones) & ^s   // a backslash
	return (t | x) & highs // or a non-ASCII byte
}

// scanString validates the string starting at b[i] == '"' and returns the
// index past its closing quote and whether it holds an escape. Plain runs
// are skipped eight bytes at a time: tool results are mostly long text.
func scanString(b []byte, i int) (end int, escaped bool, ok bool) {
	i++
	for {
		for i+8 <= len(b) {
			m := specialBytes(binary.LittleEndian.Uint64(b[i:]))
			if m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			return 0, false, false
		}
		c := b[i]
		switch {
		case plainByte[c]:
			i++
		case c == '"':
			return i + 1, escaped, true
		case c == '\\':
			if i+1 >= len(b) {
				return 0, false, false
			}
			escaped = true
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return 0, false, false
				}
				i += 6
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return 0, false, false
			}
			i += size
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// scanNumber validates -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? at
// b[i]. What follows is checked by the caller (a delimiter must come next).
func scanNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return 0, false
	case b[i] == '0':
		i++
	case isDigit(b[i]):
		i = skipDigits(b, i+1)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		if i+1 >= len(b) || !isDigit(b[i+1]) {
			return 0, false
		}
		i = skipDigits(b, i+2)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return 0, false
		}
		i = skipDigits(b, i+1)
	}
	return i, true
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

func scanLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// afterElement reads what follows an object member or an array element
// that ends at b[i]: spaces, then a comma (next is the following
// element's start) or closer (next is just past it, and done). ok is
// false for anything else, or the end of b.
func afterElement(b []byte, i int, closer byte) (next int, done, ok bool) {
	if i = skipSpace(b, i); i >= len(b) {
		return 0, false, false
	}
	switch b[i] {
	case ',':
		return skipSpace(b, i+1), false, true
	case closer:
		return i + 1, true, true
	}
	return 0, false, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// parseJSONInt parses a JSON number token the way strconv.ParseInt(s, 10,
// 64) does (an optional minus, decimal digits, within int64), without the
// error value ParseInt allocates on failure.
func parseJSONInt(raw []byte) (int64, bool) {
	neg := len(raw) > 0 && raw[0] == '-'
	if neg {
		raw = raw[1:]
	}
	if len(raw) == 0 {
		return 0, false
	}
	const limit = 1 << 63 // |math.MinInt64|
	var u uint64
	for _, c := range raw {
		if !isDigit(c) || u > limit/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
		if u > limit {
			return 0, false
		}
	}
	if neg {
		return int64(-u), true // -(1<<63) wraps to math.MinInt64
	}
	if u == limit {
		return 0, false
	}
	return int64(u), true
}
