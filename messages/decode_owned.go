package messages

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
func AppendDecodedFrame(dst []Message, frame []byte) ([]Message, []error) {
	if m, ok := decodeFrameInPlace(frame); ok {
		return append(dst, m), nil
	}
	msgs, errs := DecodeFrame(frame)
	return append(dst, msgs...), errs
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

// decodeFrameInPlace is the fast path. It reports false for every frame it
// does not decode to exactly what DecodeMessage would return, including
// every invalid one: errors are left to the slow path so that their text is
// DecodeFrame's own.
func decodeFrameInPlace(frame []byte) (Message, bool) {
	b := trimSpace(frame)
	if len(b) == 0 || len(b) > MaxMessageBytes || b[0] != '{' {
		return Message{}, false
	}
	var s [len(envelopeNames)]span
	if end, ok := scanMembers(b, 0, envelopeNames[:], s[:]); !ok || end != len(b) {
		return Message{}, false
	}
	return envelopeFromSpans(b, &s)
}

// envelopeFromSpans applies DecodeMessage's rules, in the same order, to
// the member spans of a scanned frame.
func envelopeFromSpans(b []byte, s *[len(envelopeNames)]span) (Message, bool) {
	if string(s[spanJSONRPC].raw(b)) != `"2.0"` {
		return Message{}, false
	}
	var m Message
	id, hasID := s[spanID].raw(b), s[spanID].present()
	if hasID {
		var ok bool
		if m.ID, ok = idInPlace(id); !ok {
			return Message{}, false
		}
	}
	hasResult, hasError := s[spanResult].present(), s[spanError].present()
	if s[spanMethod].present() {
		if hasResult || hasError {
			return Message{}, false
		}
		method, ok := stringInPlace(s[spanMethod].raw(b), true)
		if !ok || method == "" {
			return Message{}, false
		}
		m.Method = method
		params := s[spanParams].raw(b)
		if params != nil && !isObjectOrArray(params) {
			return Message{}, false
		}
		m.Params = nullToNil(params)
		switch {
		case !hasID:
			m.Kind = KindNotification
		case m.ID.IsNull():
			return Message{}, false
		default:
			m.Kind = KindRequest
		}
		return m, true
	}
	if !hasID {
		if !hasError || hasResult {
			return Message{}, false
		}
		m.ID = ID{kind: idNull}
	}
	if hasResult == hasError {
		return Message{}, false
	}
	m.Kind = KindResponse
	if hasResult {
		if m.ID.IsNull() {
			return Message{}, false
		}
		m.Result = s[spanResult].raw(b)
		return m, true
	}
	werr, ok := wireErrorInPlace(s[spanError].raw(b))
	if !ok {
		return Message{}, false
	}
	m.Error = werr
	return m, true
}

// idInPlace is parseID for a scanned value: the frame is known to be valid,
// so the value is one well-formed token without surrounding space.
func idInPlace(raw []byte) (ID, bool) {
	switch raw[0] {
	case 'n':
		return ID{kind: idNull}, true // the only literal starting with n
	case '"':
		s, ok := stringInPlace(raw, false)
		return StringID(s), ok
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		n, ok := parseJSONInt(raw)
		return NumberID(n), ok
	}
	return ID{}, false
}

// wireErrorInPlace is decodeWireError for a scanned error object.
func wireErrorInPlace(raw RawMessage) (*WireError, bool) {
	if raw[0] != '{' {
		return nil, false
	}
	var s [len(errorNames)]span
	if end, ok := scanMembers(raw, 0, errorNames[:], s[:]); !ok || end != len(raw) {
		return nil, false
	}
	code, ok := parseJSONInt(s[0].raw(raw))
	if !ok {
		return nil, false
	}
	message := s[1].raw(raw)
	if message == nil {
		return nil, false
	}
	text, ok := stringInPlace(message, false)
	if !ok {
		return nil, false
	}
	return &WireError{Code: code, Message: text, Data: nullToNil(s[2].raw(raw)), Raw: raw}, true
}

// stringInPlace decodes a scanned JSON string value. Without escapes the
// content is already the decoded string (the scanner checked it is valid
// UTF-8 without control characters); with escapes sonic decodes it, as it
// does on the slow path. Known method names come back as the package's
// constants, which costs no allocation.
func stringInPlace(raw []byte, method bool) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c == '\\' {
			var s string
			if err := Unmarshal(raw, &s); err != nil {
				return "", false
			}
			return s, true
		}
	}
	if method {
		if known, ok := knownMethod(body); ok {
			return known, true
		}
	}
	return string(body), true
}

// knownMethod returns the constant equal to name, if any. A switch on
// string(name) compares without converting.
func knownMethod(name []byte) (string, bool) {
	switch string(name) {
	case MethodInitialize:
		return MethodInitialize, true
	case MethodPing:
		return MethodPing, true
	case MethodToolsList:
		return MethodToolsList, true
	case MethodToolsCall:
		return MethodToolsCall, true
	case MethodResourcesList:
		return MethodResourcesList, true
	case MethodResourcesTemplatesList:
		return MethodResourcesTemplatesList, true
	case MethodResourcesRead:
		return MethodResourcesRead, true
	case MethodResourcesSubscribe:
		return MethodResourcesSubscribe, true
	case MethodResourcesUnsubscribe:
		return MethodResourcesUnsubscribe, true
	case MethodPromptsList:
		return MethodPromptsList, true
	case MethodPromptsGet:
		return MethodPromptsGet, true
	case MethodCompletionComplete:
		return MethodCompletionComplete, true
	case MethodLoggingSetLevel:
		return MethodLoggingSetLevel, true
	case MethodSamplingCreateMessage:
		return MethodSamplingCreateMessage, true
	case MethodElicitationCreate:
		return MethodElicitationCreate, true
	case MethodRootsList:
		return MethodRootsList, true
	case NotificationInitialized:
		return NotificationInitialized, true
	case NotificationCancelled:
		return NotificationCancelled, true
	case NotificationProgress:
		return NotificationProgress, true
	case NotificationMessage:
		return NotificationMessage, true
	case NotificationResourcesUpdated:
		return NotificationResourcesUpdated, true
	case NotificationResourcesListChanged:
		return NotificationResourcesListChanged, true
	case NotificationToolsListChanged:
		return NotificationToolsListChanged, true
	case NotificationPromptsListChanged:
		return NotificationPromptsListChanged, true
	case NotificationRootsListChanged:
		return NotificationRootsListChanged, true
	case NotificationElicitationComplete:
		return NotificationElicitationComplete, true
	}
	return "", false
}
