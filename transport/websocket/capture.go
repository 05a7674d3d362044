package websocket

import (
	"io"
	"net/http"
	"sync"
)

// The library closes a connection only through its close handshake, which
// waits up to 5 s to write the close frame and 5 s more for the server's
// answer, whatever the caller's context says. To honour Close's ctx the
// transport keeps its own handle on the upgraded connection: the handshake
// goes through a RoundTripper that wraps the 101 response's body (the raw
// connection the library then reads and writes) so that Close can shut it
// when ctx ends.

// upgradeCapture is the RoundTripper of one Dial.
type upgradeCapture struct {
	next http.RoundTripper
	body *upgradedBody // the last 101 response's body; set before Dial's HTTP call returns
}

// captureUpgrade returns a copy of hc (http.DefaultClient when nil) whose
// transport records the upgraded connection. Redirects, cookies and the
// client's own transport work as before.
func captureUpgrade(hc *http.Client) (*http.Client, *upgradeCapture) {
	if hc == nil {
		hc = http.DefaultClient
	}
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c := &upgradeCapture{next: next}
	copied := *hc
	copied.Transport = c
	return &copied, c
}

func (c *upgradeCapture) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		return resp, err
	}
	if rwc, ok := resp.Body.(io.ReadWriteCloser); ok {
		c.body = &upgradedBody{ReadWriteCloser: rwc}
		resp.Body = c.body
	}
	return resp, err
}

// upgradedBody is the upgraded connection, closable twice (by Close's
// deadline and by the library) without a second close reaching the socket.
type upgradedBody struct {
	io.ReadWriteCloser
	once sync.Once
	err  error
}

func (b *upgradedBody) Close() error {
	b.once.Do(func() { b.err = b.ReadWriteCloser.Close() })
	return b.err
}
