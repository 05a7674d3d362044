package demoserver

import (
	"math"
	"slices"
	"strconv"

	"github.com/mcpengine/mcpengine/messages"
)

// maxLargeBytes caps the large tool.
const maxLargeBytes = 1 << 30

// largePattern is repeated to fill the large tool's text; it needs no JSON
// escaping, and a reader can check any byte: text[i] == largePattern[i%26].
const largePattern = "abcdefghijklmnopqrstuvwxyz"

// toolEcho: {text} -> text content equal to text, structuredContent {"text"}.
// This is the benchmark hot path: no reflection on the way out, the quoted
// text is encoded once and copied.
func toolEcho(r *request, buf []byte) ([]byte, *messages.WireError) {
	var a struct {
		Text *string `json:"text"`
	}
	if ok, msg := decodeArgs(r, &a); !ok {
		return toolError(buf, msg)
	}
	if a.Text == nil {
		return toolError(buf, "missing argument: text")
	}
	buf = append(buf, `{"content":[{"type":"text","text":`...)
	start := len(buf)
	buf = appendString(buf, *a.Text)
	end := len(buf)
	if r.s.srv.opts.BadOutput {
		buf = append(buf, `}],"structuredContent":{"echo":`...)
		buf = append(buf, buf[start:end]...)
		return append(buf, "}}"...), nil
	}
	buf = append(buf, `}],"structuredContent":{"text":`...)
	buf = append(buf, buf[start:end]...)
	return append(buf, "}}"...), nil
}

// toolAdd: {a, b} -> the sum as text and structuredContent {"sum"}.
func toolAdd(r *request, buf []byte) ([]byte, *messages.WireError) {
	var a struct {
		A *float64 `json:"a"`
		B *float64 `json:"b"`
	}
	if ok, msg := decodeArgs(r, &a); !ok {
		return toolError(buf, msg)
	}
	if a.A == nil || a.B == nil {
		return toolError(buf, "missing argument: a and b are required")
	}
	sum := *a.A + *a.B
	if math.IsInf(sum, 0) || math.IsNaN(sum) {
		return toolError(buf, "the sum is not a finite number")
	}
	num := strconv.FormatFloat(sum, 'g', -1, 64)
	var sc [64]byte
	structured := append(append(append(sc[:0], `{"sum":`...), num...), '}')
	return appendTextResult(buf, num, structured, false), nil
}

// toolFail: {message} -> an isError result.
func toolFail(r *request, buf []byte) ([]byte, *messages.WireError) {
	var a struct {
		Message string `json:"message"`
	}
	if ok, msg := decodeArgs(r, &a); !ok {
		return toolError(buf, msg)
	}
	if a.Message == "" {
		a.Message = "failed on purpose"
	}
	return toolError(buf, a.Message)
}

// toolLarge: {bytes} -> one text content of exactly that many bytes
// (largePattern repeated). The response frame is allocated once at its
// final size and filled in place.
func toolLarge(r *request, buf []byte) ([]byte, *messages.WireError) {
	var a struct {
		Bytes *int64 `json:"bytes"`
	}
	if ok, msg := decodeArgs(r, &a); !ok {
		return toolError(buf, msg)
	}
	if a.Bytes == nil || *a.Bytes < 0 || *a.Bytes > maxLargeBytes {
		return toolError(buf, "bytes must be between 0 and "+strconv.Itoa(maxLargeBytes))
	}
	n := int(*a.Bytes)
	const head, tail = `{"content":[{"type":"text","text":"`, `"}]}`
	buf = slices.Grow(buf, len(head)+n+len(tail)+1)
	buf = append(buf, head...)
	start := len(buf)
	buf = buf[:start+n]
	fillPattern(buf[start:], largePattern)
	return append(buf, tail...), nil
}

// fillPattern fills dst with pattern repeated, doubling the copied span.
func fillPattern(dst []byte, pattern string) {
	if len(dst) == 0 {
		return
	}
	k := copy(dst, pattern)
	for k < len(dst) {
		k += copy(dst[k:], dst[:k])
	}
}
