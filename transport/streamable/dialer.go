package streamable

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/httpx"
	"github.com/mcpengine/mcpengine/transport/internal/httpcore"
)

// Defaults and bounds of the reconnection of event streams.
const (
	// DefaultReconnectDelay is the wait before reopening an event stream
	// when the server gave no retry time.
	DefaultReconnectDelay = time.Second
	// MaxReconnectDelay caps the backoff between failed attempts to reopen
	// an event stream (a retry time set by the server is honoured even when
	// longer).
	MaxReconnectDelay = 30 * time.Second
	// MaxResumeAttempts is how many failed attempts in a row to resume a
	// POST's answer stream are made before the request fails.
	MaxResumeAttempts = 5
)

// Dialer connects to a Streamable HTTP MCP endpoint. The zero value is not
// usable: URL is required. A Dialer is not modified by Dial and may be used
// by one session for all its reconnections.
type Dialer struct {
	// URL is the server's MCP endpoint (for example https://host/mcp).
	URL string
	// Client sends every request; nil means httpx.DefaultClient(). Share
	// one client between all sessions of an engine.
	Client *http.Client
	// Header is sent with every request: authentication (see httpx.Bearer
	// and friends) and per-server headers. Its values are never logged.
	Header http.Header
	// MaxFrameBytes caps one received message; zero means
	// transport.DefaultMaxFrameBytes. A larger answer fails its request.
	MaxFrameBytes int
	// Logger receives debug and warning records (never header values or
	// URL secrets); nil disables logging.
	Logger *slog.Logger
	// FallbackToSSE switches to the 2024-11-05 HTTP+SSE transport at the
	// same URL when the server refuses the initialize POST with 400, 404 or
	// 405.
	FallbackToSSE bool
	// ReconnectDelay is the first wait before reopening an event stream when
	// the server gave no retry time; zero means DefaultReconnectDelay.
	// Further failures back off exponentially up to MaxReconnectDelay.
	ReconnectDelay time.Duration
}

// String names the endpoint without userinfo, query or fragment.
func (d Dialer) String() string { return "streamable-http:" + httpx.RedactURL(d.URL) }

// Dial returns a connection to the endpoint. It sends nothing: the first
// request is the session's initialize. The connection implements
// transport.RequestConn. Dial fails only for a
// done ctx or an invalid URL.
func (d Dialer) Dial(ctx context.Context) (transport.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	u, err := httpcore.ParseURL(d.URL)
	if err != nil {
		return nil, fmt.Errorf("streamable: %w", err)
	}
	return newConn(&d, u), nil
}

var (
	_ transport.Dialer = Dialer{}
	_ transport.Dialer = (*Dialer)(nil)
)
