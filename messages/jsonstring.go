package messages

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string. Method names and ids are
// short and almost always plain ASCII, so this avoids a trip through the
// reflective encoder on the hot path. Invalid UTF-8 becomes U+FFFD, so the
// output is always valid JSON.
func AppendJSONString(buf []byte, s string) []byte {
	return appendQuoted(buf, s, "\ufffd")
}

// appendQuoted appends s as a JSON string: \" \\ \n \r \t, other control
// characters as \u00XX, each byte of invalid UTF-8 as badByte, everything
// else as it is. AppendJSONString writes a bad byte as a raw U+FFFD;
// appendSonicString as the escape \ufffd, as sonic does.
func appendQuoted(buf []byte, s, badByte string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, badByte...)
			i++
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
