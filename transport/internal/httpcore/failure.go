package httpcore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"unicode"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/httpx"
)

// FailureAnswer is the JSON-RPC error answer a transport delivers for a
// request that failed below JSON-RPC: code transport.CodeRequestFailed,
// data the transport.RequestFailure.
func FailureAnswer(id messages.ID, f transport.RequestFailure) []byte {
	data, err := messages.Marshal(f)
	if err != nil {
		data = nil
	}
	return messages.AppendError(nil, id, &messages.WireError{
		Code:    transport.CodeRequestFailed,
		Message: "request failed: " + f.Reason,
		Data:    data,
	})
}

// ExcerptBytes caps the part of an error body quoted in a failure reason.
const ExcerptBytes = 200

// StatusFailure describes a non-success HTTP answer: the status text and a
// short excerpt of the body, scrubbed of known secrets and of anything
// unprintable. It reads at most a few KiB of body.
func StatusFailure(resp *http.Response, scrub *httpx.Scrubber) transport.RequestFailure {
	reason := "HTTP " + resp.Status
	if resp.Status == "" {
		reason = fmt.Sprintf("HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	if ex := Excerpt(resp.Body, scrub); ex != "" {
		reason += ": " + ex
	}
	return transport.RequestFailure{Status: resp.StatusCode, Reason: reason}
}

// Excerpt reads the start of an error body and renders it for a reason.
func Excerpt(body io.Reader, scrub *httpx.Scrubber) string {
	if body == nil {
		return ""
	}
	// Read more than is shown so that a secret straddling the cut is still
	// recognized and scrubbed whole.
	b, _ := io.ReadAll(io.LimitReader(body, 4<<10))
	s := strings.ToValidUTF8(string(b), "")
	s = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return ' '
	}, s)
	s = strings.Join(strings.Fields(scrub.Scrub(s)), " ")
	if len(s) > ExcerptBytes {
		cut := ExcerptBytes
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// ErrorFailure describes a request that got no HTTP answer. The reason
// names what failed (a timeout, a refused connection, a reset) but not the
// URL, which may carry secrets.
func ErrorFailure(err error, scrub *httpx.Scrubber) transport.RequestFailure {
	f := transport.RequestFailure{Reason: ErrorReason(err, scrub), Unreachable: transport.Unreachable(err)}
	if errno, ok := transport.LocalResources(err); ok {
		f.LocalResources = transport.ErrnoName(errno)
	}
	return f
}

// ErrorReason renders a transport error without the request URL.
func ErrorReason(err error, scrub *httpx.Scrubber) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	}
	return scrub.Scrub(StripURL(err).Error())
}

// MediaType returns the media type of a Content-Type value, lowercased and
// without parameters.
func MediaType(contentType string) string {
	if i := strings.IndexByte(contentType, ';'); i >= 0 {
		contentType = contentType[:i]
	}
	return strings.ToLower(strings.TrimSpace(contentType))
}

// Discard reads what is left of a small body (so that the connection can be
// reused) and closes it.
func Discard(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 4<<10))
	_ = body.Close()
}

// ReadCapped reads a whole body of at most limit bytes. A longer body
// yields a *transport.FrameTooLargeError after reading limit+1 bytes.
func ReadCapped(body io.Reader, limit int, sizeHint int64) ([]byte, error) {
	if sizeHint > int64(limit) {
		return nil, &transport.FrameTooLargeError{Limit: limit}
	}
	var buf []byte
	if sizeHint > 0 {
		buf = make([]byte, 0, sizeHint+1) // +1 to see EOF without growing
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := body.Read(buf[len(buf):min(cap(buf), limit+1)])
		buf = buf[:len(buf)+n]
		if len(buf) > limit {
			return nil, &transport.FrameTooLargeError{Limit: limit}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
