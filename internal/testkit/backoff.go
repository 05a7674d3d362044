package testkit

import (
	"time"

	"github.com/mcpengine/mcpengine/supervisor"
)

// FastBackoff is the restart policy of tests that reconnect: quick enough
// that a test does not wait on it, slow enough that a server which
// crash-loops is not restarted hundreds of times while a test watches.
func FastBackoff() supervisor.Policy {
	return supervisor.Policy{Initial: 10 * time.Millisecond, Max: 100 * time.Millisecond}
}
