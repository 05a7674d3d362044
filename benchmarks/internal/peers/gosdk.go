package peers

import (
	"context"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type goSDKClient struct{ cs *mcp.ClientSession }

// DialGoSDK connects the official go-sdk client over its CommandTransport.
func DialGoSDK(ctx context.Context, command string, args []string) (Client, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(command, args...)},
		&mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		return nil, err
	}
	return &goSDKClient{cs: cs}, nil
}

func (c *goSDKClient) Echo(ctx context.Context) error {
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": EchoText}})
	if err != nil {
		return err
	}
	if res.IsError || len(res.Content) == 0 {
		return errBadEcho
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return errBadEcho
	}
	return checkEcho(tc.Text)
}

func (c *goSDKClient) Close() error { return c.cs.Close() }
