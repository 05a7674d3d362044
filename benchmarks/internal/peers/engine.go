package peers

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mcpengine/mcpengine"
)

// engineLib is one Engine; every session of the target is opened from it.
type engineLib struct {
	t      Target
	eng    *mcpengine.Engine
	opened atomic.Int64 // names sessions: an Engine's session names are unique
}

func newEngine(t Target) Library {
	return &engineLib{t: t, eng: mcpengine.New(mcpengine.Config{ProtocolVersion: t.Version})}
}

func (l *engineLib) Open(ctx context.Context) (Client, error) {
	sc := mcpengine.SessionConfig{Name: "bench-" + strconv.FormatInt(l.opened.Add(1), 10), Server: mcpengine.ServerConfig{Command: l.t.Command, Args: l.t.Args}}
	if l.t.URL != "" {
		sc.Server = mcpengine.ServerConfig{URL: l.t.URL, Type: "streamable-http"}
	}
	s, err := l.eng.Connect(ctx, sc)
	if err != nil {
		return nil, err
	}
	if err := checkVersion(l.t, s.ProtocolVersion()); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Close(ctx)
		return nil, err
	}
	return &engineClient{s: s}, nil
}

func (l *engineLib) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return l.eng.Close(ctx)
}

type engineClient struct{ s *mcpengine.Session }

func (c *engineClient) Echo(ctx context.Context) error {
	res, err := c.s.CallTool(ctx, "echo", map[string]any{"text": EchoText})
	if err != nil {
		return err
	}
	if res.IsError || len(res.Content) == 0 {
		return errBadEcho
	}
	return checkEcho(res.Content[0].Text)
}

func (c *engineClient) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.s.Close(ctx)
}
