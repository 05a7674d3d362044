package streamable

import (
	"context"
	"net/http"

	"github.com/mcpengine/mcpengine/transport/internal/h2stream"
	"github.com/mcpengine/mcpengine/transport/internal/httpcore"
)

// postHeaders are the per-request headers of a POST beside the
// connection's own: what sendPost adds to the request NewPost builds.
type postHeaders struct {
	caller      http.Header // the caller's own (request_headers.go)
	mod         *httpcore.Modern
	sid         string
	version     string
	sendVersion bool
}

// replaced reports whether name is one of the headers set last, which
// replace a configured or caller's header of that name.
func (h *postHeaders) replaced(name string) bool {
	switch name {
	case httpcore.HeaderMethod:
		return h.mod.Set()
	case httpcore.HeaderName:
		return h.mod.Set() && h.mod.Name != ""
	case httpcore.HeaderSessionID:
		return h.sid != ""
	case httpcore.HeaderProtocolVersion:
		return h.sendVersion
	}
	return false
}

// appendFields appends the fields of a POST sent without an
// http.Request, the same headers as the request path's (sendPost): the
// connection's and NewPost's, the caller's that none of those set, then
// the 2026-07-28, session and version headers.
func (c *conn) appendFields(dst []h2stream.Field, h *postHeaders) []h2stream.Field {
	dst = httpcore.AppendPostFields(dst, c.header, h.replaced)
	for k, vv := range h.caller {
		if httpcore.SetByNewPost(c.header, k) || h.replaced(k) {
			continue
		}
		for _, v := range vv {
			dst = append(dst, h2stream.Field{Name: k, Value: v})
		}
	}
	if h.mod.Set() {
		dst = append(dst, h2stream.Field{Name: httpcore.HeaderMethod, Value: h.mod.Method})
		if h.mod.Name != "" {
			dst = append(dst, h2stream.Field{Name: httpcore.HeaderName, Value: h.mod.Name})
		}
	}
	if h.sid != "" {
		dst = append(dst, h2stream.Field{Name: httpcore.HeaderSessionID, Value: h.sid})
	}
	if h.sendVersion {
		dst = append(dst, h2stream.Field{Name: httpcore.HeaderProtocolVersion, Value: h.version})
	}
	return dst
}

// postDirect sends p's POST through the client's own HTTP/2 transport
// without an http.Request or its header map (httpx.Poster): a call in
// flight holds neither. sent is false when the request path must send it
// after all: the origin does not speak h2, or the answer is a redirect,
// which http.Client follows.
func (c *conn) postDirect(ctx context.Context, p *post, h *postHeaders) (resp *http.Response, sent bool, err error) {
	var room [12]h2stream.Field // the engine's headers and a few configured ones, on the stack
	fields := c.appendFields(room[:0], h)
	resp, err = c.poster.Post(ctx, c.target, fields, p.out.Frame)
	switch {
	case err == h2stream.ErrNotH2:
		return nil, false, nil
	case err != nil:
		return nil, true, httpcore.SchemeMismatch(err)
	case httpcore.Redirect(resp):
		httpcore.Discard(resp.Body)
		return nil, false, nil
	}
	return resp, true, nil
}
