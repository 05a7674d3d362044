package mcpengine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpengine/mcpengine/demoserver"
)

// serveEnv makes the test binary act as the demo server over stdio, so the
// subprocess tests need no other binary: the engine starts os.Args[0] with
// this variable set (JSON demoserver.Options in serveOptsEnv).
const (
	serveEnv     = "MCPENGINE_TEST_SERVE"
	serveOptsEnv = "MCPENGINE_TEST_SERVE_OPTS"
	pidFileEnv   = "MCPENGINE_TEST_PIDFILE"
)

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		os.Exit(serveDemo())
	}
	goleak.VerifyTestMain(m)
}

func serveDemo() int {
	var opts demoserver.Options
	if raw := os.Getenv(serveOptsEnv); raw != "" {
		if err := json.Unmarshal([]byte(raw), &opts); err != nil {
			fmt.Fprintln(os.Stderr, "bad options:", err)
			return 2
		}
	}
	opts.Stderr = os.Stderr
	if f := os.Getenv(pidFileEnv); f != "" {
		_ = os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	err := demoserver.ServeStdio(ctx, opts, os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo server:", err)
		return 1
	}
	return 0
}
