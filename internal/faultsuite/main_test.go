//go:build linux

package faultsuite

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// engineBin is the CLI, built once: most stdio faults are `engine serve`
// with its fault flags, run as users run it. selfExe is this test binary,
// which runs as the scripted server when serverEnv is set.
var engineBin, selfExe string

func TestMain(m *testing.M) {
	if mode := os.Getenv(serverEnv); mode != "" {
		os.Exit(serveScripted(mode, os.Stdin, os.Stdout))
	}
	if scenario := os.Getenv(fdChildEnv); scenario != "" {
		os.Exit(runFDChild(scenario))
	}
	code := func() int {
		var err error
		if selfExe, err = os.Executable(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		dir, err := os.MkdirTemp("", "mcpengine-faults-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		engineBin = filepath.Join(dir, "engine")
		if out, err := exec.Command("go", "build", "-o", engineBin, "github.com/mcpengine/mcpengine/cmd/engine").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building cmd/engine: %v\n%s", err, out)
			return 1
		}
		start := time.Now()
		code := m.Run()
		printTable(os.Stdout, time.Since(start))
		return code
	}()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
