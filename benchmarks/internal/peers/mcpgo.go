package peers

import (
	"context"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

type mcpGoClient struct{ c *client.Client }

// DialMCPGo connects the mcp-go stdio client.
func DialMCPGo(ctx context.Context, command string, args []string) (Client, error) {
	c, err := client.NewStdioMCPClient(command, nil, args...)
	if err != nil {
		return nil, err
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = ProtocolVersion
	req.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		_ = c.Close()
		return nil, err
	}
	return &mcpGoClient{c: c}, nil
}

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
