package legacysse

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/httpx"
	"github.com/mcpengine/mcpengine/transport/internal/httpcore"
)

// Dialer connects to a 2024-11-05 HTTP+SSE server. The zero value is not
// usable: URL is required.
type Dialer struct {
	// URL is the server's SSE endpoint (for example https://host/sse).
	URL string
	// Client sends every request; nil means httpx.DefaultClient(). Share
	// one client between all sessions of an engine.
	Client *http.Client
	// Header is sent with every request (authentication, per-server
	// headers). Its values are never logged.
	Header http.Header
	// MaxFrameBytes caps one received message; zero means
	// transport.DefaultMaxFrameBytes. A larger event fails the connection
	// with *transport.FrameTooLargeError.
	MaxFrameBytes int
	// Logger receives debug and warning records (never header values or
	// URL secrets); nil disables logging.
	Logger *slog.Logger
}

// String names the SSE URL without userinfo, query or fragment.
func (d Dialer) String() string { return "sse:" + httpx.RedactURL(d.URL) }

// ErrNoEndpoint is returned by Dial when the stream ends before the
// server sent its endpoint event.
var ErrNoEndpoint = errors.New("legacysse: the event stream ended before the endpoint event")

// EndpointOriginError is returned by Dial when the server's endpoint event
// names a URL on another origin than the SSE URL's. It holds only the two
// origins (scheme://host:port), never paths or queries.
type EndpointOriginError struct {
	Stream   string // the SSE URL's origin
	Endpoint string // the refused endpoint's origin
}

func (e *EndpointOriginError) Error() string {
	return fmt.Sprintf("legacysse: refused the server's message endpoint on %s: not the origin of the event stream (%s)", e.Endpoint, e.Stream)
}

// Permanent tells the session's supervisor not to retry: a server that
// points its clients at another origin will do so again, and following it
// would let the server aim the client's credentials at any host.
func (e *EndpointOriginError) Permanent() bool { return true }

// Dial opens the event stream and waits, bounded by ctx, for the endpoint
// event. The returned connection implements transport.RequestConn; messages
// the server sends before Start is called are kept until then. ctx bounds
// only the establishment: the stream lives until Close.
func (d Dialer) Dial(ctx context.Context) (transport.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	u, err := httpcore.ParseURL(d.URL)
	if err != nil {
		return nil, fmt.Errorf("legacysse: %w", err)
	}
	c := newConn(&d, u)
	ready := make(chan error, 1)
	if !c.sched.Go(func() { c.readStream(ready) }) {
		return nil, transport.ErrClosed
	}
	select {
	case err = <-ready:
	case <-ctx.Done():
		err = fmt.Errorf("legacysse: waiting for the endpoint event from %s: %w", c.name, ctx.Err())
	}
	if err != nil {
		c.shutdown()
		return nil, err
	}
	return c, nil
}

// origin renders scheme://host:port with the scheme's default port filled
// in, lowercased, for the same-origin comparison.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host + ":" + port
}

// resolveEndpoint resolves the endpoint event's data against the SSE URL
// and refuses it unless it is on the same origin.
func resolveEndpoint(stream *url.URL, data string) (*url.URL, error) {
	ref, err := url.Parse(strings.TrimSpace(data))
	if err != nil || strings.TrimSpace(data) == "" {
		return nil, errors.New("legacysse: the endpoint event holds no valid URL")
	}
	ep := stream.ResolveReference(ref)
	if origin(ep) != origin(stream) {
		return nil, &EndpointOriginError{Stream: origin(stream), Endpoint: origin(ep)}
	}
	return ep, nil
}

var (
	_ transport.Dialer = Dialer{}
	_ transport.Dialer = (*Dialer)(nil)
)
