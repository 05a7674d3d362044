package mcpengine

import (
	"errors"
	"fmt"

	"github.com/mcpengine/mcpengine/transport/httpx"
)

// errUnsupportedScheme is the cause of the *ConnectError for a server URL
// whose scheme no transport speaks.
var errUnsupportedScheme = errors.New("unsupported URL scheme")

// checkURLScheme refuses, before any traffic, a URL whose scheme the
// chosen transport cannot speak: an ftp:// server is a typo to report
// now, not a dial to retry until the connect timeout.
func checkURLScheme(kind, scheme, rawURL string) error {
	want := "http or https"
	ok := scheme == "http" || scheme == "https"
	if kind == "ws" || kind == "websocket" {
		want = "ws, wss, http or https"
		ok = ok || scheme == "ws" || scheme == "wss"
	}
	if ok {
		return nil
	}
	return &ConnectError{
		Server: httpx.RedactURL(rawURL),
		Reason: fmt.Sprintf("%s %q (want %s)", errUnsupportedScheme, scheme, want),
		Cause:  errUnsupportedScheme,
	}
}
