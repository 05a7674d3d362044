package demoserver

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/bytedance/sonic"

	"github.com/mcpengine/mcpengine/messages"
)

// paramsCodec decodes received params like messages.Unmarshal (strings are
// validated). decodeJSON lets sonic copy the frame into a string first:
// viewing the frame's bytes as a string without the copy (unsafe.String)
// is the pattern sonic's issue #186 reports as corrupting the GC, and a
// fuzzed engine decoder built that way stalled its whole process.
var paramsCodec = sonic.Config{ValidateString: true}.Froze()

func decodeJSON(data []byte, v any) error { return paramsCodec.Unmarshal(data, v) }

// appendString appends s as a JSON string without reflection (shared with
// the engine's encoder): invalid UTF-8 becomes U+FFFD.
func appendString(buf []byte, s string) []byte { return messages.AppendJSONString(buf, s) }

// appendMarshal appends v encoded by the messages codec. Used off the hot
// path only.
func appendMarshal(buf []byte, v any) ([]byte, *messages.WireError) {
	raw, err := messages.Marshal(v)
	if err != nil {
		return buf, internalError(err)
	}
	return append(buf, raw...), nil
}

// appendTextResult appends a CallToolResult with one text block and an
// optional structuredContent (already encoded).
func appendTextResult(buf []byte, text string, structured []byte, isError bool) []byte {
	buf = append(buf, `{"content":[{"type":"text","text":`...)
	buf = appendString(buf, text)
	buf = append(buf, `}]`...)
	if len(structured) > 0 {
		buf = append(buf, `,"structuredContent":`...)
		buf = append(buf, structured...)
	}
	if isError {
		buf = append(buf, `,"isError":true`...)
	}
	return append(buf, '}')
}

// Cursors are opaque to clients: base64url of "<list>:<offset>". They are
// validated on the way back in, so a cursor from another list or a made-up
// one is an invalid-params error.
func encodeCursor(list string, offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(list + ":" + strconv.Itoa(offset)))
}

func decodeCursor(list, cursor string, total int) (int, *messages.WireError) {
	if cursor == "" {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, invalidParams("invalid cursor")
	}
	rest, ok := strings.CutPrefix(string(raw), list+":")
	if !ok {
		return 0, invalidParams("invalid cursor")
	}
	off, err := strconv.Atoi(rest)
	if err != nil || off <= 0 || off >= total {
		return 0, invalidParams("invalid cursor")
	}
	return off, nil
}

// page returns the bounds of the page starting at the cursor and the cursor
// of the next page ("" on the last one).
func page(list, cursor string, total, size int) (lo, hi int, next string, werr *messages.WireError) {
	lo, werr = decodeCursor(list, cursor, total)
	if werr != nil {
		return 0, 0, "", werr
	}
	hi = min(lo+size, total)
	if hi < total {
		next = encodeCursor(list, hi)
	}
	return lo, hi, next, nil
}

// decodeParams decodes optional params into v; absent params leave v zero.
func decodeParams(params messages.RawMessage, v any) *messages.WireError {
	if len(params) == 0 {
		return nil
	}
	if err := decodeJSON(params, v); err != nil {
		return invalidParams(err.Error())
	}
	return nil
}

func invalidParams(msg string) *messages.WireError {
	return &messages.WireError{Code: messages.CodeInvalidParams, Message: msg}
}

func internalError(err error) *messages.WireError {
	return &messages.WireError{Code: messages.CodeInternalError, Message: err.Error()}
}
