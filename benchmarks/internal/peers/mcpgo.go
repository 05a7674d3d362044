package peers

import (
	"context"
	"net/http"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// mcpGoLib opens mcp-go clients (one per session: the library has no
// shared client object); over HTTP they share one http.Client.
type mcpGoLib struct {
	t  Target
	hc *http.Client
}

func newMCPGo(t Target) Library {
	l := &mcpGoLib{t: t}
	if t.URL != "" {
		l.hc = newHTTPClient()
	}
	return l
}

func (l *mcpGoLib) Open(ctx context.Context) (Client, error) {
	var c *client.Client
	var err error
	if l.t.URL != "" {
		if c, err = client.NewStreamableHttpClient(l.t.URL, transport.WithHTTPBasicClient(l.hc)); err == nil {
			err = c.Start(ctx)
		}
	} else {
		c, err = client.NewStdioMCPClient(l.t.Command, nil, l.t.Args...)
	}
	if err != nil {
		if c != nil {
			_ = c.Close()
		}
		return nil, err
	}
	var req mcp.InitializeRequest
	// A 2026-07-28 pin makes Initialize a server/discover; an older one
	// the initialize handshake, with no discover probe.
	req.Params.ProtocolVersion = l.t.Version
	req.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		_ = c.Close()
		return nil, err
	}
	if err := checkVersion(l.t, c.ProtocolVersion()); err != nil {
		_ = c.Close()
		return nil, err
	}
	return &mcpGoClient{c: c}, nil
}

func (l *mcpGoLib) Close() error {
	if l.hc != nil {
		closeHTTPClient(l.hc)
	}
	return nil
}

type mcpGoClient struct{ c *client.Client }

func (c *mcpGoClient) Echo(ctx context.Context) error {
	var req mcp.CallToolRequest
	req.Params.Name = "echo"
	req.Params.Arguments = map[string]any{"text": EchoText}
	res, err := c.c.CallTool(ctx, req)
	if err != nil {
		return err
	}
	if res.IsError || len(res.Content) == 0 {
		return errBadEcho
	}
	tc, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		return errBadEcho
	}
	return checkEcho(tc.Text)
}

func (c *mcpGoClient) Close() error { return c.c.Close() }
