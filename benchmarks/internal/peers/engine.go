package peers

import (
	"context"
	"time"

	"github.com/mcpengine/mcpengine"
)

type engineClient struct {
	eng *mcpengine.Engine
	s   *mcpengine.Session
}

// DialEngine connects one mcpengine session (its own Engine) over stdio.
func DialEngine(ctx context.Context, command string, args []string) (Client, error) {
	eng := mcpengine.New(mcpengine.Config{ProtocolVersion: ProtocolVersion})
	s, err := eng.Connect(ctx, mcpengine.SessionConfig{
		Name:   "bench",
		Server: mcpengine.ServerConfig{Command: command, Args: args},
	})
	if err != nil {
		_ = closeEngine(eng)
		return nil, err
	}
	return &engineClient{eng: eng, s: s}, nil
}

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

func (c *engineClient) Close() error { return closeEngine(c.eng) }

func closeEngine(eng *mcpengine.Engine) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return eng.Close(ctx)
}
