package messages

import (
	"encoding/json"

	"github.com/bytedance/sonic"
)

// RawMessage is a raw encoded JSON value, kept undecoded until needed.
type RawMessage = json.RawMessage

// MaxMessageBytes is the default cap on one received frame. Transports
// enforce it while reading; DecodeFrame refuses anything longer as well.
const MaxMessageBytes = 32 << 20

// untrusted is the codec for everything a server sends: strings are
// validated (invalid UTF-8 and raw control characters are errors) so that
// nothing malformed is passed on to callers or re-encoded into invalid JSON.
var untrusted = sonic.Config{
	ValidateString:   true,
	EscapeHTML:       false,
	CompactMarshaler: true,
	NoNullSliceOrMap: false,
}.Froze()

// outgoing encodes what the engine sends. ValidateString makes the encoder
// replace invalid UTF-8 in caller-provided strings instead of emitting
// invalid JSON.
var outgoing = sonic.Config{
	ValidateString:   true,
	EscapeHTML:       false,
	CompactMarshaler: true,
}.Froze()

// Marshal encodes v for the wire.
func Marshal(v any) ([]byte, error) { return outgoing.Marshal(v) }

// Unmarshal decodes data received from a peer into v, validating strings.
func Unmarshal(data []byte, v any) error { return untrusted.Unmarshal(data, v) }

// Valid reports whether data is one well-formed JSON value.
func Valid(data []byte) bool { return untrusted.Valid(data) }
