package memory

import (
	"context"

	"github.com/mcpengine/mcpengine/transport"
)

// NewDialer returns a Dialer whose every Dial makes a new pipe, runs
// serve(server end) in a new goroutine and returns the client end. name is
// what the Dialer's String reports, as "memory:"+name.
//
// Contract for serve: it must return once its conn's ReadFrame reports
// io.EOF or transport.ErrClosed (the client closed); when it returns the
// server end is closed, so the client then reads io.EOF. A serve that never
// returns leaks its goroutine.
func NewDialer(name string, serve func(server transport.Conn)) transport.Dialer {
	return &dialer{name: name, serve: serve}
}

type dialer struct {
	name  string
	serve func(transport.Conn)
}

func (d *dialer) String() string { return "memory:" + d.name }

// Dial fails only when ctx is already done.
func (d *dialer) Dial(ctx context.Context) (transport.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	client, server := NewPipe()
	// Owner: the dialer, on behalf of this connection. Exits when serve
	// returns, which serve's contract ties to the client closing its end.
	go func() {
		defer server.Close(context.Background())
		d.serve(server)
	}()
	return client, nil
}
