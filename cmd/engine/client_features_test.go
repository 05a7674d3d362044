package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

// Sampling, elicitation and roots the CLI cannot answer are named, with
// what to do, in both eras: a 2026-07-28 server refuses the call (-32021),
// an older one asks and reports the client's method-not-found.
func TestCallSaysWhichClientCapabilityIsMissing(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ tool, want string }{
		{"sample", "sampling: the server asks the client for an LLM completion, which the engine CLI cannot give"},
		{"elicit", "elicitation: the server asks you for input, which the CLI does only when stdin is a terminal"},
		{"roots", "roots: the server asks for the directories it may work in; give them with --root DIR"},
	} {
		for _, version := range []string{"", "2025-06-18"} {
			args := []string{"call", c.tool, "--arg", "prompt=p", "--arg", "message=m"}
			if version != "" {
				args = append(args, "--protocol-version", version)
			}
			r := engine(t, "", args...)
			assert.Equal(t, 1, r.code)
			line := oneLineError(t, r)
			assert.Contains(t, line, c.want, "%s %s", c.tool, version)
		}
	}
}

func TestCallAnswersRootsFromRootFlags(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	r := ok(t, "call", "roots", "--root", a, "--root", b)
	assert.Equal(t, "file://"+filepath.ToSlash(a)+"\nfile://"+filepath.ToSlash(b)+"\n", r.stdout)

	file := filepath.Join(a, "f")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	r = engine(t, "", "call", "roots", "--root", file)
	assert.Equal(t, 2, r.code, "a usage error: %s", r.stderr)
	assert.Contains(t, r.stderr, "not a directory")
}

// The terminal prompter answers a real elicitation round trip: the
// question, a refused answer asked again, the fields in the schema's
// order.
func TestTerminalPrompterAnswersElicitation(t *testing.T) {
	var out strings.Builder
	p := newTerminalPrompter(strings.NewReader("\nAda\nmaybe\ny\n"), &out)
	srv := demoserver.New(demoserver.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	eng := mcpengine.New(mcpengine.Config{Elicitation: p.elicit})
	defer func() { require.NoError(t, eng.Close(context.Background())) }()
	dialer := memory.NewDialer("demo", func(conn transport.Conn) { _ = srv.Serve(ctx, conn) })
	s, err := eng.Connect(ctx, mcpengine.SessionConfig{Name: "demo", Dialer: dialer})
	require.NoError(t, err)
	res, err := s.CallTool(ctx, "elicit", map[string]any{"message": "Who are you?"})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	assert.Contains(t, res.Content[0].Text, "action=accept")
	assert.Contains(t, res.Content[0].Text, `"name":"Ada"`)
	assert.Contains(t, res.Content[0].Text, `"confirm":true`)
	prompts := out.String()
	assert.Contains(t, prompts, "The server asks: Who are you?")
	assert.Less(t, strings.Index(prompts, "Name (required): "), strings.Index(prompts, "Confirm [y/n]: "), "the schema's order")
	assert.Contains(t, prompts, "answer y or n", "a wrong answer is asked again")
}

func TestTerminalPrompterDeclinesAndCancels(t *testing.T) {
	ctx := context.Background()
	req := &messages.ElicitParams{Message: "m", RequestedSchema: messages.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)}
	for input, want := range map[string]string{
		"n\n":          messages.ElicitActionDecline,
		"":             messages.ElicitActionCancel,
		"y\n":          messages.ElicitActionCancel, // input ends before the field
		"y\nx\n\n42\n": messages.ElicitActionAccept,
	} {
		var out strings.Builder
		res, err := newTerminalPrompter(strings.NewReader(input), &out).elicit(ctx, req)
		require.NoError(t, err)
		assert.Equal(t, want, res.Action, "input %q", input)
		if want == messages.ElicitActionAccept {
			assert.Equal(t, map[string]any{"n": int64(42)}, res.Content)
			assert.Contains(t, out.String(), "a whole number")
			assert.Contains(t, out.String(), "required")
		}
	}
}
