package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/internal/testkit"
)

var engineBin string

func TestMain(m *testing.M) {
	os.Exit(testkit.Main(m, testkit.MainOptions{EngineBin: &engineBin}))
}

// The example does what its comment says against the real demo server.
func TestExampleEmbeddingCallsTheDemoServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out strings.Builder
	require.NoError(t, run(ctx, &out, []string{engineBin, "serve"}, "echo", `{"text":"hi"}`))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2, out.String())
	assert.Contains(t, lines[0], " echo ")
	assert.Equal(t, "hi", lines[1])
}

func TestExampleEmbeddingSaysWhatIsWrong(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out strings.Builder
	require.Error(t, run(ctx, &out, []string{engineBin, "serve"}, "fail", `{"message":"no"}`))
	require.Error(t, run(ctx, &out, []string{engineBin, "serve"}, "echo", `not json`))
	require.Error(t, run(ctx, &out, nil, "echo", `{}`))
}
