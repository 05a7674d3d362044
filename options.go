package mcpengine

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/messages"
)

// CallOption adjusts one request: WithTimeout, WithProgress,
// WithResetOnProgress, FailFast, WithMeta, WithHeader. The zero
// CallOption does nothing.
type CallOption struct {
	apply func(*actors.Call)
}

// WithTimeout sets this request's timeout (default: the session's, 60s).
// The caller's ctx deadline applies as well; the earlier one wins.
func WithTimeout(d time.Duration) CallOption {
	return CallOption{func(c *actors.Call) { c.Timeout = d }}
}

// WithProgress asks the server for progress notifications: the engine
// generates the progress token and calls fn for each notification, in
// order, on the session's callback dispatcher.
func WithProgress(fn func(messages.ProgressParams)) CallOption {
	return CallOption{func(c *actors.Call) { c.Progress = fn }}
}

// WithResetOnProgress extends the request's timeout each time progress
// arrives, but never beyond maxTotal after it was sent (0: no cap). It
// implies progress notifications are requested.
func WithResetOnProgress(maxTotal time.Duration) CallOption {
	return CallOption{func(c *actors.Call) {
		c.ResetOnProgress = true
		c.MaxTotal = maxTotal
		if c.Progress == nil {
			c.Progress = func(messages.ProgressParams) {}
		}
	}}
}

// FailFast makes the request fail with ErrNotReady instead of waiting while
// the session (re)connects.
func FailFast() CallOption { return CallOption{func(c *actors.Call) { c.FailFast = true }} }

// WithMeta adds members to the request's params._meta, merged with what
// the params already carry there and with what the engine adds (the
// progress token, trace context, and in 2026-07-28 the per-request
// protocol version, client info and capabilities): the request carries one
// _meta object. Values are encoded as JSON once, when the option is made;
// a value that cannot be encoded fails the call before it is sent. The
// keys the 2026-07-28 era reserves for the engine
// (io.modelcontextprotocol/protocolVersion, clientInfo,
// clientCapabilities) and progressToken (use WithProgress) are left out.
func WithMeta(meta map[string]any) CallOption {
	keys := make([]string, 0, len(meta))
	for k := range meta {
		if !engineMetaKey(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys) // the same map gives the same bytes
	fields := make([]messages.MetaField, 0, len(keys))
	for _, k := range keys {
		raw, err := messages.Marshal(meta[k])
		if err != nil {
			err = fmt.Errorf("mcpengine: WithMeta: the value of %q: %w", k, err)
			return CallOption{func(c *actors.Call) { c.Err = err }}
		}
		fields = append(fields, messages.MetaField{Key: k, Value: raw})
	}
	if len(fields) == 0 {
		return CallOption{}
	}
	return CallOption{func(c *actors.Call) { c.Params = messages.WithMeta(c.Params, fields...) }}
}

// engineMetaKey reports the _meta keys the engine writes itself.
func engineMetaKey(k string) bool {
	switch k {
	case messages.MetaProtocolVersion, messages.MetaClientInfo, messages.MetaClientCapabilities, messages.MetaProgressToken:
		return true
	}
	return false
}

// WithHeader adds an HTTP header to this request alone, over Streamable
// HTTP, where each request is a POST of its own (other transports have no
// per-request HTTP request and ignore it). Repeat it for more headers or
// values. The transport's own headers (content negotiation, the session
// id, the protocol version, the 2026-07-28 Mcp-Method and Mcp-Name), the
// Mcp-Param-* headers CallTool mirrors from a tool's x-mcp-header
// arguments and the server's configured ones win over the caller's. For
// headers on every
// request, see Config.OnHTTPRequest.
func WithHeader(key, value string) CallOption {
	key = http.CanonicalHeaderKey(key)
	return CallOption{func(c *actors.Call) {
		if c.Header == nil {
			c.Header = http.Header{}
		}
		c.Header[key] = append(c.Header[key], value)
	}}
}
