package messages

import (
	"math"
	"strconv"
)

// appendArgs appends tool arguments made of what JSON decodes to (and
// what code builds them from): maps of strings to values, slices of
// values, strings, booleans, float64s, ints and nil, exactly as the
// outgoing codec writes them (sonic with ValidateString and
// NoNullSliceOrMap; the fuzz tests hold the two equal). It reports false
// for any other value, leaving b's contents past its length undefined.
// sonic's first use in a process costs milliseconds (its loader, then an
// encoder compiled for the arguments' type): more than the rest of a
// session's first call; and these arguments are appended with less CPU
// than sonic's.
func appendArgs(b []byte, v any, depth int) ([]byte, bool) {
	if depth > maxArgsDepth {
		return b, false
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return appendSonicString(b, x), true
	case bool:
		return strconv.AppendBool(b, x), true
	case float64:
		return appendFloat(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case map[string]any:
		b = append(b, '{')
		first := true
		var ok bool
		for k, e := range x {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendSonicString(b, k)
			b = append(b, ':')
			if b, ok = appendArgs(b, e, depth+1); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	case []any:
		b = append(b, '[')
		var ok bool
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendArgs(b, e, depth+1); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	}
	return b, false
}

// maxArgsDepth bounds the nesting appendArgs follows (and so its
// recursion); deeper arguments go to sonic.
const maxArgsDepth = 64

// appendSonicString appends s quoted as sonic writes it with
// ValidateString: each byte of invalid UTF-8 as the escape \ufffd.
func appendSonicString(b []byte, s string) []byte { return appendQuoted(b, s, `\ufffd`) }

// appendFloat appends f as sonic (and encoding/json) write a float64:
// the shortest representation, in exponent form below 1e-6 and from 1e21
// on, with a one-digit exponent where it fits. NaN and infinities, which
// sonic refuses, report false.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	abs := math.Abs(f)
	if abs == 0 || abs >= 1e-6 && abs < 1e21 {
		return strconv.AppendFloat(b, f, 'f', -1, 64), true
	}
	n := len(b)
	b = strconv.AppendFloat(b, f, 'e', -1, 64)
	// e-07 → e-7, e+21 stays.
	if m := len(b); m-n >= 4 && b[m-4] == 'e' && b[m-3] == '-' && b[m-2] == '0' {
		b[m-2] = b[m-1]
		b = b[:m-1]
	}
	return b, true
}
