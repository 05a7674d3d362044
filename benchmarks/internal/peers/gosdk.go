package peers

import (
	"context"
	"net/http"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// goSDKLib is one mcp.Client; over HTTP its sessions share one http.Client.
type goSDKLib struct {
	t      Target
	client *mcp.Client
	hc     *http.Client
}

func newGoSDK(t Target) Library {
	l := &goSDKLib{t: t, client: mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)}
	if t.URL != "" {
		l.hc = newHTTPClient()
	}
	return l
}

func (l *goSDKLib) Open(ctx context.Context) (Client, error) {
	var tr mcp.Transport = &mcp.CommandTransport{Command: exec.Command(l.t.Command, l.t.Args...)}
	if l.t.URL != "" {
		tr = &mcp.StreamableClientTransport{Endpoint: l.t.URL, HTTPClient: l.hc}
	}
	cs, err := l.client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: l.t.Version})
	if err != nil {
		return nil, err
	}
	if err := checkVersion(l.t, cs.InitializeResult().ProtocolVersion); err != nil {
		_ = cs.Close()
		return nil, err
	}
	return &goSDKClient{cs: cs}, nil
}

func (l *goSDKLib) Close() error {
	if l.hc != nil {
		closeHTTPClient(l.hc)
	}
	return nil
}

type goSDKClient struct{ cs *mcp.ClientSession }

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
