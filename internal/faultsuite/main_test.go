//go:build linux

package faultsuite

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mcpengine/mcpengine/internal/testkit"
)

// engineBin is the CLI, built once: most stdio faults are `engine serve`
// with its fault flags, run as users run it. selfExe is this test binary,
// which runs as the scripted server when serverEnv is set.
var engineBin, selfExe string

func TestMain(m *testing.M) {
	if mode := os.Getenv(serverEnv); mode != "" {
		os.Exit(serveScripted(mode, os.Stdin, os.Stdout))
	}
	if os.Getenv(holdEnv) != "" {
		os.Exit(runHolder())
	}
	if scenario := os.Getenv(fdChildEnv); scenario != "" {
		os.Exit(runFDChild(scenario))
	}
	var err error
	if selfExe, err = os.Executable(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	start := time.Now()
	os.Exit(testkit.Main(m, testkit.MainOptions{
		EngineBin: &engineBin,
		AfterRun:  func() { printTable(os.Stdout, time.Since(start)) },
	}))
}
