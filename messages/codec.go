package messages

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/bytedance/sonic"
)

// RawMessage is a raw encoded JSON value, kept undecoded until needed.
type RawMessage = json.RawMessage

// MaxMessageBytes is the default cap on one received frame. Transports
// enforce it while reading; DecodeFrame refuses anything longer as well.
const MaxMessageBytes = 32 << 20

// untrusted is the codec for everything a server sends. With
// ValidateString, sonic (v1.15, native path; pinned by codec_test.go):
//
//   - rejects raw control characters (U+0000..U+001F) inside strings with
//     a syntax error, at any depth, including inside RawMessage members and
//     in members that are skipped;
//   - replaces every invalid UTF-8 sequence with U+FFFD, in decoded strings
//     and also inside RawMessage values, which are copied (never aliasing
//     the input buffer) with the replacement applied;
//   - leaves escaped lone surrogates ("\ud800") in RawMessage as they are:
//     that is valid JSON text, and decoding it later yields U+FFFD.
//
// So no invalid UTF-8 and no unescaped control character reaches a caller
// through Unmarshal or DecodeFrame, and a received RawMessage can be
// forwarded verbatim. Decoded strings and RawMessages never alias the
// caller's buffer (sonic decodes from a copy), so transports may reuse
// their read buffers.
//
// CaseSensitive: sonic, like encoding/json, otherwise matches member names
// case-insensitively, which would accept {"JSONRPC":"2.0","ID":1,...} and
// let "Result" stand in for "result". JSON-RPC and MCP names are exact.
var untrusted = sonic.Config{
	ValidateString:   true,
	CaseSensitive:    true,
	EscapeHTML:       false,
	CompactMarshaler: true,
	NoNullSliceOrMap: false,
}.Froze()

// outgoing encodes what the engine sends. ValidateString makes the encoder
// replace invalid UTF-8 in caller-provided strings (and RawMessages) with
// \ufffd instead of emitting invalid JSON. NoNullSliceOrMap sends a nil
// slice or map that has no omitempty as [] or {}: the schema's required
// arrays (roots, content, values, ...) must never be null.
var outgoing = sonic.Config{
	ValidateString:   true,
	EscapeHTML:       false,
	CompactMarshaler: true,
	NoNullSliceOrMap: true,
}.Froze()

// Marshal encodes v for the wire.
func Marshal(v any) ([]byte, error) { return outgoing.Marshal(v) }

// Unmarshal decodes data received from a peer into v, validating strings
// (see untrusted above).
func Unmarshal(data []byte, v any) error { return untrusted.Unmarshal(data, v) }

// Valid reports whether data is one well-formed JSON value as RFC 8259
// defines it. sonic's own Valid checks structure only and accepts invalid
// UTF-8 and raw control characters in strings, so those are checked here.
func Valid(data []byte) bool {
	return untrusted.Valid(data) && utf8.Valid(data) && !hasRawControlInString(data)
}

// hasRawControlInString reports whether a byte below 0x20 appears inside a
// string. Outside strings the structural check already refuses everything
// but whitespace.
func hasRawControlInString(data []byte) bool {
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case !inString:
			inString = c == '"'
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case c == '"':
			inString = false
		case c < 0x20:
			return true
		}
	}
	return false
}
