package messages

import (
	"bytes"
	"errors"
	"fmt"
)

// wireEnvelope is the on-the-wire shape. Every member is raw so that
// absence, null and wrong types can be told apart during validation.
type wireEnvelope struct {
	JSONRPC RawMessage `json:"jsonrpc"`
	ID      RawMessage `json:"id"`
	Method  RawMessage `json:"method"`
	Params  RawMessage `json:"params"`
	Result  RawMessage `json:"result"`
	Error   RawMessage `json:"error"`
}

type wireErrorObject struct {
	Code    RawMessage `json:"code"`
	Message RawMessage `json:"message"`
	Data    RawMessage `json:"data"`
}

// DecodeFrame decodes one received frame: a single message, or a JSON-RPC
// batch array (which 2025-03-26 servers may send). It returns every valid
// message in order and one error per invalid part; a frame that is not JSON
// at all yields no messages and one error. Nothing here panics on any input.
// It refuses frames longer than MaxMessageBytes; DecodeFrameLimit takes the
// limit a session was configured with.
func DecodeFrame(frame []byte) ([]Message, []error) {
	return DecodeFrameLimit(frame, MaxMessageBytes)
}

// DecodeFrameLimit is DecodeFrame with a frame size limit of maxBytes
// (zero or less means MaxMessageBytes). The transport enforces the same
// limit while reading; the decoder checks it again for frames that did not
// come through one.
func DecodeFrameLimit(frame []byte, maxBytes int) ([]Message, []error) {
	frame = trimSpace(frame)
	if len(frame) == 0 {
		return nil, []error{invalid("empty frame", frame)}
	}
	if len(frame) > frameLimit(maxBytes) {
		return nil, []error{invalid(fmt.Sprintf("frame exceeds the %d-byte limit", frameLimit(maxBytes)), frame[:64])}
	}
	if frame[0] == '[' {
		return decodeBatch(frame)
	}
	msg, err := DecodeMessage(frame)
	if err != nil {
		return nil, []error{err}
	}
	return []Message{msg}, nil
}

func decodeBatch(frame []byte) ([]Message, []error) {
	var parts []RawMessage
	if err := Unmarshal(frame, &parts); err != nil {
		return nil, []error{invalid("malformed batch: "+err.Error(), frame)}
	}
	if len(parts) == 0 {
		return nil, []error{invalid("empty batch", frame)}
	}
	msgs := make([]Message, 0, len(parts))
	var errs []error
	for _, p := range parts {
		m, err := DecodeMessage(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		msgs = append(msgs, m)
	}
	return msgs, errs
}

// DecodeMessage decodes and validates one JSON-RPC message object.
func DecodeMessage(data []byte) (Message, error) {
	var w wireEnvelope
	if err := Unmarshal(data, &w); err != nil {
		return Message{}, invalid("malformed JSON: "+err.Error(), data)
	}
	return w.message(data)
}

// message applies JSON-RPC's rules to an envelope's members, however they
// were found (sonic here, the scanner in AppendDecodedFrame); data is the
// whole message, for the errors.
func (w *wireEnvelope) message(data []byte) (Message, error) {
	if string(w.JSONRPC) != `"2.0"` {
		return Message{}, w.invalidAnswer(`jsonrpc must be "2.0"`, data)
	}
	var m Message
	var err error
	if w.ID != nil {
		if m.ID, err = parseID(w.ID); err != nil {
			return Message{}, invalid(err.Error(), data)
		}
	}
	if w.Method != nil {
		if w.Result != nil || w.Error != nil {
			return Message{}, invalid("a request or notification cannot carry result or error", data)
		}
		if len(w.Method) < 2 || w.Method[0] != '"' {
			return Message{}, invalid("method must be a string", data)
		}
		var ok bool
		if m.Method, ok = decodeString(w.Method, true); !ok || m.Method == "" {
			return Message{}, invalid("method must be a non-empty string", data)
		}
		if w.Params != nil && !isObjectOrArray(w.Params) {
			return Message{}, invalid("params must be an object or an array", data)
		}
		m.Params = nullToNil(w.Params)
		switch {
		case w.ID == nil:
			m.Kind = KindNotification
		case m.ID.IsNull():
			return Message{}, invalid("request id must not be null", data)
		default:
			m.Kind = KindRequest
		}
		return m, nil
	}
	// A response.
	hasResult, hasError := w.Result != nil, w.Error != nil
	if w.ID == nil {
		if !hasError || hasResult {
			return Message{}, invalid("message has neither method nor id", data)
		}
		// 2025-11-25 lets an error response omit the id (when the request's
		// id could not be read); it means the same as a null id.
		m.ID = ID{kind: idNull}
	}
	if hasResult == hasError {
		return Message{}, w.invalidAnswer("a response must have exactly one of result and error", data)
	}
	m.Kind = KindResponse
	if hasResult {
		if m.ID.IsNull() {
			return Message{}, invalid("a success response must have a non-null id", data)
		}
		m.Result = w.Result
		return m, nil
	}
	werr, err := decodeWireError(w.Error)
	if err != nil {
		return Message{}, w.invalidAnswer(err.Error(), data)
	}
	m.Error = werr
	return m, nil
}

// decodeWireError decodes an error object: its members found by the
// scanner when it accepts the object (no allocation, the members alias
// raw), by sonic otherwise.
func decodeWireError(raw RawMessage) (*WireError, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, errors.New("error must be an object")
	}
	var o wireErrorObject
	var s [len(errorNames)]span
	if end, ok := scanMembers(raw, 0, errorNames[:], s[:]); ok && end == len(raw) {
		o = wireErrorObject{Code: s[0].raw(raw), Message: s[1].raw(raw), Data: s[2].raw(raw)}
	} else if err := Unmarshal(raw, &o); err != nil {
		return nil, errors.New("malformed error object: " + err.Error())
	}
	code, ok := parseJSONInt(trimSpace(o.Code))
	if !ok {
		return nil, errors.New("error code must be an integer")
	}
	if len(o.Message) == 0 || o.Message[0] != '"' {
		return nil, errors.New("error message must be a string")
	}
	message, ok := decodeString(o.Message, false)
	if !ok {
		return nil, errors.New("error message must be a string")
	}
	return &WireError{Code: code, Message: message, Data: nullToNil(o.Data), Raw: raw}, nil
}

// decodeString decodes a JSON string value that sonic or the scanner has
// already validated (valid UTF-8, no raw control characters): without
// escapes its content is the string; escapes go through sonic. A method
// name this package defines comes back as its constant, without
// allocating.
func decodeString(raw []byte, method bool) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') >= 0 {
		var s string
		if err := Unmarshal(raw, &s); err != nil {
			return "", false
		}
		return s, true
	}
	if method {
		if known, ok := knownMethod(body); ok {
			return known, true
		}
	}
	return string(body), true
}

func isObjectOrArray(raw RawMessage) bool {
	raw = trimSpace(raw)
	return len(raw) > 0 && (raw[0] == '{' || raw[0] == '[' || string(raw) == "null")
}

func nullToNil(raw RawMessage) RawMessage {
	if string(trimSpace(raw)) == "null" {
		return nil
	}
	return raw
}

func invalid(reason string, frame []byte) error { return invalidMessage(reason, frame) }

func invalidMessage(reason string, frame []byte) *InvalidMessageError {
	const show = 120
	s := string(frame)
	if len(frame) > show {
		s = string(frame[:show]) + "…"
	}
	return &InvalidMessageError{Reason: reason, Frame: s}
}

// invalidAnswer is invalid for a message that may be a broken response: a
// message without a method whose id can still be read carries that id, so
// that the request it answers fails at once with what was wrong.
func (w *wireEnvelope) invalidAnswer(reason string, data []byte) error {
	e := invalidMessage(reason, data)
	if w.Method == nil && w.ID != nil {
		if id, err := parseID(w.ID); err == nil && id.IsValid() {
			e.ID = id
		}
	}
	return e
}

// frameLimit is the frame size limit a decoder applies for maxBytes.
func frameLimit(maxBytes int) int {
	if maxBytes <= 0 {
		return MaxMessageBytes
	}
	return maxBytes
}
