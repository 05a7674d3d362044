package websocket

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	cws "github.com/coder/websocket"

	"github.com/mcpengine/mcpengine/transport"
)

// refusalCloseGrace bounds the close handshake Dial runs on a connection it
// refuses (wrong subprotocol) when its ctx has no earlier deadline: a Dial
// without a deadline must not wait the library's 10 s for a server that never
// answers the close.
const refusalCloseGrace = time.Second

// Dialer opens WebSocket connections to one MCP server. The zero value of
// every field but URL works. A Dialer is a transport.Dialer; it may be
// copied, and used from several goroutines at once.
type Dialer struct {
	// URL is the server's endpoint: ws:// or wss:// (http:// and https://
	// are accepted as their WebSocket equivalents). Userinfo, if present, is
	// sent as HTTP basic authentication and never shown by String.
	URL string

	// Header is added to the handshake request (Authorization, cookies, …).
	// Values may be secrets: they are never logged.
	Header http.Header

	// HTTPClient performs the handshake; nil means http.DefaultClient. Its
	// Timeout, if set, bounds the handshake only.
	HTTPClient *http.Client

	// MaxFrameBytes caps one received message; zero means
	// transport.DefaultMaxFrameBytes.
	MaxFrameBytes int

	// Logger receives the connection's warnings (a binary message); nil
	// discards them.
	Logger *slog.Logger
}

var _ transport.Dialer = Dialer{}

// String returns the URL without userinfo, query or fragment, which may hold
// credentials, prefixed with "websocket:".
func (d Dialer) String() string {
	u, err := url.Parse(d.URL)
	if err != nil {
		return "websocket:(invalid URL)"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return "websocket:" + u.String()
}

// Dial performs the WebSocket handshake and returns the connection. ctx
// bounds the handshake only: once Dial has returned, cancelling ctx does not
// affect the connection, which lives until Conn.Close.
//
// A server that answers with a status other than 101, or that upgrades
// without agreeing to the "mcp" subprotocol, fails Dial with a
// *HandshakeError.
func (d Dialer) Dial(ctx context.Context) (transport.Conn, error) {
	if err := checkURL(d.URL); err != nil {
		return nil, fmt.Errorf("websocket: dial %s: %w", d, err)
	}
	hc, capture := captureUpgrade(d.HTTPClient)
	ws, resp, err := cws.Dial(ctx, d.URL, &cws.DialOptions{
		HTTPClient:   hc,
		HTTPHeader:   d.Header,
		Subprotocols: []string{Subprotocol},
	})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return nil, &HandshakeError{Target: d.String(), Status: resp.StatusCode, Err: err}
		}
		// net/http's *url.Error quotes the URL, query included, and the
		// query may hold a token: keep only what went wrong.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("websocket: dial %s: %w", d, err)
	}
	if got := ws.Subprotocol(); got != Subprotocol {
		c := newConn(ws, capture.body, d)
		c.setCloseReason(cws.StatusPolicyViolation, "the mcp subprotocol is required")
		cctx, cancel := context.WithTimeout(ctx, refusalCloseGrace)
		_ = c.Close(cctx)
		cancel()
		return nil, &HandshakeError{Target: d.String(), Status: http.StatusSwitchingProtocols, Subprotocol: got}
	}
	return newConn(ws, capture.body, d), nil
}

// checkURL rejects what the library would reject with a vaguer message.
func checkURL(raw string) error {
	if raw == "" {
		return errors.New("empty URL")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("invalid URL") // url.Error would repeat the URL, credentials included
	}
	switch u.Scheme {
	case "ws", "wss", "http", "https":
	default:
		return fmt.Errorf("URL scheme %q is not ws, wss, http or https", u.Scheme)
	}
	if u.Host == "" {
		return errors.New("URL has no host")
	}
	return nil
}

func (d Dialer) maxFrameBytes() int {
	if d.MaxFrameBytes > 0 {
		return d.MaxFrameBytes
	}
	return transport.DefaultMaxFrameBytes
}

func (d Dialer) logger() *slog.Logger {
	if d.Logger != nil {
		return d.Logger
	}
	return slog.New(slog.DiscardHandler)
}
