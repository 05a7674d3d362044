package demoserver

import (
	"github.com/bytedance/sonic"

	"github.com/mcpengine/mcpengine/messages"
)

// toolMeta: {} -> the request's params._meta as JSON text ("{}" when it
// had none), so tests can see what a client propagated (traceparent,
// progressToken) exactly as the server received it.
func toolMeta(r *request, buf []byte) ([]byte, *messages.WireError) {
	meta := "{}"
	if n, err := sonic.Get(r.params, "_meta"); err == nil {
		if raw, err := n.Raw(); err == nil {
			meta = raw
		}
	}
	buf = append(buf, `{"content":[{"type":"text","text":`...)
	buf = appendString(buf, meta)
	return append(buf, "}]}"...), nil
}
