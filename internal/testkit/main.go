package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// enginePackage is the CLI's import path: `go build` finds it from any
// directory of the module, so every package's tests build the same binary.
const enginePackage = "github.com/mcpengine/mcpengine/cmd/engine"

// MainOptions says what Main prepares around the tests.
type MainOptions struct {
	// EngineBin, when set, receives the path of the engine CLI, built
	// once into a directory removed after the tests.
	EngineBin *string
	// RaceEngine builds that binary with the race detector: it catches
	// races in the engine under real subprocess use, but every process
	// start is several times slower.
	RaceEngine bool
	// AfterRun runs after the tests, before the leak check (a suite's
	// summary table).
	AfterRun func()
	// IgnoreLeaks are goroutines a package's tests may leave behind.
	IgnoreLeaks []goleak.Option
}

// Main runs a test binary's tests and returns its exit code, for
// os.Exit(testkit.Main(m, opts)) in TestMain: it builds the engine CLI if
// asked, runs m, and after a passing run fails on any goroutine still
// running (goleak), as goleak.VerifyTestMain does.
func Main(m *testing.M, opts MainOptions) int {
	if opts.EngineBin != nil {
		dir, err := os.MkdirTemp("", "mcpengine-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		bin, err := buildEngine(dir, opts.RaceEngine)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		*opts.EngineBin = bin
	}
	code := m.Run()
	if opts.AfterRun != nil {
		opts.AfterRun()
	}
	if code == 0 {
		if err := goleak.Find(opts.IgnoreLeaks...); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			return 1
		}
	}
	return code
}

// buildEngine builds the engine CLI into dir and returns its path.
func buildEngine(dir string, race bool) (string, error) {
	bin := filepath.Join(dir, "engine")
	args := []string{"build", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, enginePackage)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building %s: %w\n%s", enginePackage, err, out)
	}
	return bin, nil
}
