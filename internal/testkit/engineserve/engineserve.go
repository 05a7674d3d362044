// Package engineserve is the demo server as users run it, for _test.go
// files only: the part of the test kit that needs the root package, apart
// from internal/testkit so that a transport's own tests (which the root
// package imports) can use the kit without an import cycle.
package engineserve

import "github.com/mcpengine/mcpengine"

// Config is `engine serve` with the given flags, a real subprocess
// speaking stdio, started by the engine binary bin (testkit.Main's
// EngineBin).
func Config(bin string, args ...string) mcpengine.ServerConfig {
	return mcpengine.ServerConfig{Command: bin, Args: append([]string{"serve"}, args...)}
}
