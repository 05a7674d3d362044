package mcpengine_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// engineBin is the CLI, built once for the tests that drive the demo server
// as users run it: `engine serve`.
var engineBin string

func TestMain(m *testing.M) {
	if era := os.Getenv(cannedServerEnv); era != "" {
		serveCanned(era)
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "mcpengine-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	engineBin = filepath.Join(dir, "engine")
	if out, err := exec.Command("go", "build", "-o", engineBin, "./cmd/engine").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building cmd/engine: %v\n%s", err, out)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		_ = os.RemoveAll(dir)
		os.Exit(code)
	}))
}
