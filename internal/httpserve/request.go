package httpserve

import (
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"

	"github.com/mcpengine/mcpengine/messages"
)

// Accepts reports whether the Accept header lists the media type exactly
// (parameters ignored): the specification requires clients to list both
// application/json and text/event-stream, and wildcards do not count.
func Accepts(r *http.Request, mediaType string) bool {
	for _, v := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, _ := strings.Cut(part, ";")
			if strings.EqualFold(strings.TrimSpace(mt), mediaType) {
				return true
			}
		}
	}
	return false
}

// IsJSONContent reports whether the request body is declared as JSON.
func IsJSONContent(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "application/json"
}

// ReadStreamablePost applies the Streamable HTTP rules to a POST (Accept
// lists application/json and text/event-stream, the body is JSON within
// limit bytes) and decodes its message or batch. On failure it answers
// (406, 415, 413, 400) and returns a nil body.
func ReadStreamablePost(w http.ResponseWriter, r *http.Request, limit int64) (body []byte, msgs []messages.Message) {
	if !Accepts(r, "application/json") || !Accepts(r, "text/event-stream") {
		Error(w, http.StatusNotAcceptable, messages.CodeInvalidRequest, "Accept must list application/json and text/event-stream")
		return nil, nil
	}
	if !IsJSONContent(r) {
		Error(w, http.StatusUnsupportedMediaType, messages.CodeInvalidRequest, "Content-Type must be application/json")
		return nil, nil
	}
	return ReadMessages(w, r, limit)
}

// ReadBody reads a request body within limit bytes. On failure it answers
// (413 over the limit, 408 past the Guard's body deadline, 400 otherwise)
// and returns nil.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64) []byte {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			Error(w, http.StatusRequestEntityTooLarge, messages.CodeInvalidRequest, "body exceeds the size limit")
			return nil
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			// The Guard's body deadline: the connection cannot be used
			// any more.
			Refuse(w, r, http.StatusRequestTimeout, messages.CodeInvalidRequest, "the body did not arrive in time")
			return nil
		}
		Error(w, http.StatusBadRequest, messages.CodeParseError, "reading the body: "+err.Error())
		return nil
	}
	return body
}

// DecodeBody decodes a POSTed message or batch. An invalid one is answered
// with 400 and a parse or invalid-request error, and ok is false.
func DecodeBody(w http.ResponseWriter, body []byte) (msgs []messages.Message, ok bool) {
	msgs, errs := messages.DecodeFrame(body)
	if len(errs) > 0 {
		code := int64(messages.CodeInvalidRequest)
		if !messages.Valid(body) {
			code = messages.CodeParseError
		}
		Error(w, http.StatusBadRequest, code, errs[0].Error())
		return nil, false
	}
	return msgs, true
}

// ReadMessages reads and decodes a POSTed message or batch (ReadBody,
// then DecodeBody); on failure it has answered and body is nil.
func ReadMessages(w http.ResponseWriter, r *http.Request, limit int64) (body []byte, msgs []messages.Message) {
	if body = ReadBody(w, r, limit); body == nil {
		return nil, nil
	}
	msgs, ok := DecodeBody(w, body)
	if !ok {
		return nil, nil
	}
	return body, msgs
}

// MethodNotAllowed answers 405 with the Allow header.
func MethodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	Error(w, http.StatusMethodNotAllowed, messages.CodeInvalidRequest, "method not allowed")
}

// Error answers an HTTP error whose body is a JSON-RPC error response
// without an id, as Streamable HTTP servers do.
func Error(w http.ResponseWriter, status int, code int64, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(messages.AppendError(nil, messages.ID{}, &messages.WireError{Code: code, Message: msg}))
}
