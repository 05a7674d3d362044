package benchmarks_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/benchmarks/internal/interop"
	"github.com/mcpengine/mcpengine/messages"
)

var update = flag.Bool("update", false, "rewrite ../docs/INTEROP.md from the interop matrix")

// interopCell is one run of the engine against a Go SDK server.
type interopCell struct {
	transport, mode, pin string
	// wantVersion is the version the engine must settle on; empty when
	// the cell must fail Connect with wantErr.
	wantVersion string
	wantErr     any // pointer to the typed error errors.As must find
}

func interopCells() []interopCell {
	var cells []interopCell
	for _, tr := range []string{"stdio", "http"} {
		cells = append(cells,
			interopCell{transport: tr, mode: interop.ModeAll, wantVersion: messages.Version20260728},
			interopCell{transport: tr, mode: interop.ModeModern, wantVersion: messages.Version20260728},
			interopCell{transport: tr, mode: interop.ModeLegacy, wantVersion: messages.Version20251125},
			interopCell{transport: tr, mode: interop.ModeRefuseInitialize, wantVersion: messages.Version20260728},
			interopCell{transport: tr, mode: interop.ModeAll, pin: messages.Version20250618, wantVersion: messages.Version20250618},
			interopCell{transport: tr, mode: interop.ModeRefuseInitialize, pin: messages.Version20251125, wantErr: new(*mcpengine.NoCommonVersionError)},
			interopCell{transport: tr, mode: interop.ModeLegacy, pin: messages.Version20260728, wantErr: new(*mcpengine.NoCommonVersionError)},
		)
	}
	return cells
}

var (
	gosdkServerOnce sync.Once
	gosdkServerBin  string
	gosdkServerErr  error
)

// gosdkServer builds cmd/gosdkserver once per test binary.
func gosdkServer(t *testing.T) string {
	gosdkServerOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gosdkserver")
		if err != nil {
			gosdkServerErr = err
			return
		}
		gosdkServerBin = filepath.Join(dir, "gosdkserver")
		out, err := exec.Command("go", "build", "-o", gosdkServerBin, "./cmd/gosdkserver").CombinedOutput()
		if err != nil {
			gosdkServerErr = fmt.Errorf("building cmd/gosdkserver: %v\n%s", err, out)
		}
	})
	require.NoError(t, gosdkServerErr)
	return gosdkServerBin
}

// TestInteropWithTheGoSDKServer runs the engine, with nothing pinned and
// with pins, against the official Go SDK v1.8.0 server in each era mode,
// over stdio (a server subprocess) and stateless Streamable HTTP, and
// checks the version negotiated and tools, resources and prompts in it.
// The matrix is docs/INTEROP.md: -update rewrites it, and the test fails
// when the checked-in file differs from what the run found.
func TestInteropWithTheGoSDKServer(t *testing.T) {
	cells := interopCells()
	rows := make([]string, len(cells))
	for i, c := range cells {
		name := c.transport + "/" + c.mode
		if c.pin != "" {
			name += "/pin=" + c.pin
		}
		t.Run(name, func(t *testing.T) {
			rows[i] = runInteropCell(t, c)
		})
	}
	if t.Failed() {
		return
	}
	doc := interopDoc(cells, rows)
	path := filepath.Join("..", "docs", "INTEROP.md")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
		return
	}
	old, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to create it")
	assert.Equal(t, doc, string(old), "docs/INTEROP.md is out of date: go test -run TestInterop -update")
}

func runInteropCell(t *testing.T, c interopCell) string {
	var server mcpengine.ServerConfig
	switch c.transport {
	case "stdio":
		server = mcpengine.ServerConfig{Command: gosdkServer(t), Args: []string{"--mode", c.mode}}
	case "http":
		srv, err := interop.NewServer(c.mode)
		require.NoError(t, err)
		ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
		t.Cleanup(ts.Close)
		server = mcpengine.ServerConfig{URL: ts.URL, Type: "streamable-http"}
	}
	e := mcpengine.New(mcpengine.Config{ProtocolVersion: c.pin, ClientInfo: messages.Implementation{Name: "mcpengine-interop", Version: "1"},
		Roots: []messages.Root{{URI: "file:///interop", Name: "interop"}},
		Sampling: func(context.Context, *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			content, err := messages.Marshal(messages.TextContent("Paris"))
			if err != nil {
				return nil, err
			}
			return &messages.CreateMessageResult{Role: "assistant", Model: "interop", Content: content}, nil
		},
		Elicitation: func(context.Context, *messages.ElicitParams) (*messages.ElicitResult, error) {
			return &messages.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		assert.NoError(t, e.Close(ctx))
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "gosdk", Server: server})
	if c.wantErr != nil {
		require.Error(t, err)
		require.True(t, errors.As(err, c.wantErr), "%T: %v", c.wantErr, err)
		require.ErrorIs(t, err, mcpengine.ErrSessionClosed, "permanent: closed, not backing off")
		require.False(t, errors.Is(err, context.DeadlineExceeded))
		return fmt.Sprintf("fails at once: `%s`", strings.TrimPrefix(fmt.Sprintf("%T", errTarget(c.wantErr)), "*mcperr."))
	}
	require.NoError(t, err)
	require.Equal(t, c.wantVersion, s.ProtocolVersion())
	assert.Equal(t, "go-sdk-interop", s.ServerInfo().Name)

	tools, err := s.ListTools(ctx)
	require.NoError(t, err)
	require.Len(t, tools, 3)
	res, err := s.CallTool(ctx, "echo", map[string]any{"text": "interop"})
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res)
	require.Equal(t, "interop", res.Content[0].Text)
	resources, err := s.ListResources(ctx)
	require.NoError(t, err)
	require.Len(t, resources, 1)
	rr, err := s.ReadResource(ctx, "interop://greeting")
	require.NoError(t, err)
	require.Equal(t, "hello", rr.Contents[0].Text)
	prompts, err := s.ListPrompts(ctx)
	require.NoError(t, err)
	require.Len(t, prompts, 1)
	pr, err := s.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"})
	require.NoError(t, err)
	require.Len(t, pr.Messages, 1)
	cr, err := s.Complete(ctx, &messages.CompleteParams{
		Ref:      messages.CompleteReference{Type: "ref/prompt", Name: "greet"},
		Argument: messages.CompleteArgument{Name: "name", Value: "A"},
	})
	require.NoError(t, err)
	require.Equal(t, []string{"Ada", "Alan"}, cr.Completion.Values)
	require.NoError(t, s.Ping(ctx))
	passed := "tools, resources, prompts, completion, ping"
	if listened := interopListen(ctx, t, s, c.transport); listened != "" {
		passed += ", " + listened
	}
	if s.ProtocolVersion() != messages.Version20260728 {
		return fmt.Sprintf("%s (%s) — %s pass", s.ProtocolVersion(), s.Era(), passed)
	}
	// input_required: elicitation, sampling and roots in one round, a
	// requestState-only round, then the result.
	res, err = s.CallTool(ctx, "ask", nil)
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res)
	require.Equal(t, "Ada|Paris|file:///interop", res.Content[0].Text)
	return fmt.Sprintf("%s (%s) — %s, input_required pass", s.ProtocolVersion(), s.Era(), passed)
}

// interopListen asks for notifications, has the server add a tool and
// waits for its notifications/tools/list_changed: on the stdio channel in
// the handshake era, on a subscriptions/listen stream in 2026-07-28. A
// stateless HTTP server of the handshake era has no channel for it (it
// refuses the GET stream), so that cell reports nothing.
func interopListen(ctx context.Context, t *testing.T, s *mcpengine.Session, transport string) string {
	modern := s.ProtocolVersion() == messages.Version20260728
	if !modern && transport == "http" {
		return ""
	}
	changed, stop := onToolsChanged(s)
	defer stop()
	if modern {
		ack := waitListenOpen(ctx, t, s)
		require.NotNil(t, ack)
		require.True(t, ack.ToolsListChanged, "%+v", ack)
	}
	res, err := s.CallTool(ctx, "grow", nil)
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res)
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no notifications/tools/list_changed after the server added a tool")
	}
	tools, err := s.ListTools(ctx)
	require.NoError(t, err)
	require.Len(t, tools, 4)
	if modern {
		return "listen"
	}
	return "list_changed"
}

func errTarget(p any) any {
	if pp, ok := p.(**mcpengine.NoCommonVersionError); ok {
		return *pp
	}
	return p
}

func interopDoc(cells []interopCell, rows []string) string {
	var b strings.Builder
	b.WriteString(`# Interoperability: mcpengine against the official Go SDK server

Generated by ` + "`TestInteropWithTheGoSDKServer`" + ` (benchmarks/interop_test.go; ` + "`make interop`" + `,
` + "`go test -run TestInterop -update`" + ` in benchmarks/ rewrites this file). The
server is github.com/modelcontextprotocol/go-sdk v1.8.0 (benchmarks/internal/interop):

- **all-versions**: its default, 2026-07-28 and every handshake-era version;
- **2026-07-28-only**: ` + "`SupportedProtocolVersions: [2026-07-28]`" + `;
- **legacy-only**: ` + "`SupportedProtocolVersions`" + ` without 2026-07-28;
- **refuses-initialize**: every version, and ` + "`initialize`" + ` answered with -32022 naming 2026-07-28.

over stdio (a server subprocess, cmd/gosdkserver) and stateless Streamable HTTP
(` + "`StreamableHTTPOptions{Stateless: true}`" + `, in process). "pin" is the engine's
` + "`Config.ProtocolVersion`" + ` (none: negotiated). Each passing cell lists tools, calls
one, lists and reads resources, lists and gets prompts, completes a prompt
argument, and pings (a server/discover round trip in 2026-07-28); then it asks
for notifications, has the server add a tool and waits for the
notifications/tools/list_changed ("listen": on a subscriptions/listen stream in
2026-07-28; "list_changed": on the stdio channel of the handshake era). In 2026-07-28 it also calls a
tool answering input_required twice (elicitation, sampling and roots in
one round, then a requestState-only round), which the engine's handlers
answer.

| transport | server | pin | outcome |
|---|---|---|---|
`)
	for i, c := range cells {
		pin := c.pin
		if pin == "" {
			pin = "—"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", c.transport, c.mode, pin, rows[i])
	}
	b.WriteString(`
A stateless HTTP server of the handshake era has no channel for notifications
(it refuses the GET stream), so those cells do not check list changes.
`)
	return b.String()
}
