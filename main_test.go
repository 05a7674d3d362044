package mcpengine_test

import (
	"os"
	"testing"

	"github.com/mcpengine/mcpengine/internal/testkit"
)

// engineBin is the CLI, built once for the tests that drive the demo server
// as users run it: `engine serve`.
var engineBin string

func TestMain(m *testing.M) {
	if era := os.Getenv(cannedServerEnv); era != "" {
		serveCanned(era)
		os.Exit(0)
	}
	if era := os.Getenv(cannedHTTPServerEnv); era != "" {
		serveCannedHTTP(era)
		os.Exit(0)
	}
	if era := os.Getenv(h2cDemoServerEnv); era != "" {
		serveH2CDemo(era)
		os.Exit(0)
	}
	os.Exit(testkit.Main(m, testkit.MainOptions{EngineBin: &engineBin}))
}
