package httpcore

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/httpx"
)

// ErrPushOnly is what ReadFrame of an HTTP connection returns: such a
// connection is a transport.RequestConn, whose frames arrive through Start.
var ErrPushOnly = errors.New("mcpengine/transport: an HTTP connection delivers frames through Start, not ReadFrame")

// ReadFrame is the ReadFrame of an HTTP connection, closed or not: the
// session never calls it, and anyone else learns why.
func ReadFrame(closed bool) ([]byte, error) {
	if closed {
		return nil, transport.ErrClosed
	}
	return nil, ErrPushOnly
}

// ParseURL accepts absolute http and https URLs. Its errors never repeat
// the URL, which may hold credentials; callers prefix their package name.
func ParseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid URL %s", httpx.RedactURL(raw))
	}
	if s := strings.ToLower(u.Scheme); (s != "http" && s != "https") || u.Host == "" {
		return nil, fmt.Errorf("URL %s is not an absolute http or https URL", httpx.RedactURL(raw))
	}
	return u, nil
}

// StripURL drops a *url.Error wrapper, whose message repeats the request
// URL (and with it any token in the query).
func StripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
