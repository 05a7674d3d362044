package messages

import "unicode/utf8"

// AppendDecodedFrame decodes one received frame exactly as DecodeFrame does
// (the same messages in the same order, the same errors for invalid parts)
// and appends the messages to dst, so a caller that passes a small backing
// array allocates nothing for the slice.
//
// Unlike DecodeFrame, the raw members of the returned messages (Params,
// Result, Error.Data and Error.Raw) may alias frame instead of being
// copies. The caller therefore owns frame and must never modify it (nor
// reuse its buffer) while any returned message is in use. Strings (Method,
// a string ID, Error.Message) are never aliases.
//
// A plain, valid single-message frame is decoded by an allocation-free
// scanner: a success response with a numeric id, or a request or
// notification with a numeric id (or none) and a method this package
// names, allocates nothing at all; a string id, another method name or an
// error response costs only those strings and the *WireError. Anything
// else (a batch, invalid UTF-8, raw control characters, escaped or repeated
// member names, very deep nesting, or any message DecodeFrame would reject)
// goes through DecodeFrame itself, so behaviour on odd input is DecodeFrame's
// and those results are copies.
//
// It refuses frames longer than MaxMessageBytes; AppendDecodedFrameLimit
// takes the limit a session was configured with.
func AppendDecodedFrame(dst []Message, frame []byte) ([]Message, []error) {
	msgs, errs, _ := AppendDecodedFrameLimit(dst, frame, MaxMessageBytes)
	return msgs, errs
}

// AppendDecodedFrameLimit is AppendDecodedFrame with a frame size limit of
// maxBytes (zero or less means MaxMessageBytes), the limit the transport
// that read the frame applied: a frame it let through must not be dropped
// here for a smaller, hard-coded one.
//
// replacedUTF8 reports a frame that held invalid UTF-8 inside its strings
// and still gave messages: they carry U+FFFD for each bad sequence (the
// untrusted codec's rule, see codec.go). Such a frame is accepted, since
// dropping it would leave a caller waiting for an answer that did come,
// and the caller of this function counts it. Only frames the scanner
// refused pay for the check.
func AppendDecodedFrameLimit(dst []Message, frame []byte, maxBytes int) (msgs []Message, errs []error, replacedUTF8 bool) {
	if m, err, scanned := decodeFrameInPlace(frame, frameLimit(maxBytes)); scanned {
		if err != nil {
			return dst, []error{err}, false
		}
		return append(dst, m), nil, false
	}
	decoded, errs := DecodeFrameLimit(frame, maxBytes)
	replacedUTF8 = len(decoded) > 0 && !utf8.Valid(frame)
	return append(dst, decoded...), errs, replacedUTF8
}

// The members the envelope and an error object are decoded from, in the
// order of the span arrays below.
var (
	envelopeNames = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}
	errorNames    = [...]string{"code", "message", "data"}
)

const (
	spanJSONRPC = iota
	spanID
	spanMethod
	spanParams
	spanResult
	spanError
)

// decodeFrameInPlace is the fast path: when the scanner accepts the frame
// (scanned reports true), its members are exactly what sonic would have
// found, so the same rules (wireEnvelope.message) give the same message or
// the same error, with the raw members aliasing the frame.
func decodeFrameInPlace(frame []byte, maxBytes int) (m Message, err error, scanned bool) {
	b := trimSpace(frame)
	if len(b) == 0 || len(b) > maxBytes || b[0] != '{' {
		return Message{}, nil, false
	}
	var s [len(envelopeNames)]span
	if end, ok := scanMembers(b, 0, envelopeNames[:], s[:]); !ok || end != len(b) {
		return Message{}, nil, false
	}
	w := wireEnvelope{
		JSONRPC: s[spanJSONRPC].raw(b), ID: s[spanID].raw(b), Method: s[spanMethod].raw(b),
		Params: s[spanParams].raw(b), Result: s[spanResult].raw(b), Error: s[spanError].raw(b),
	}
	m, err = w.message(b)
	return m, err, true
}
