package mcpengine_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
)

// TestLargeCallsInParallelOverH2C: calls whose arguments and answers are
// far larger than HTTP/2's flow-control windows (160 KB each, 32 at once
// on one connection whose window is the server's 1 MB) go over
// net/http's HTTP/2 client to a demo server in another process, and
// every answer comes back whole, in both eras.
func TestLargeCallsInParallelOverH2C(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			server := startH2CDemo(t, era)
			e := newEngine(t, mcpengine.Config{})
			ctx := testCtx(t, 60*time.Second)
			s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "large", Server: server})
			require.NoError(t, err)

			const calls = 32
			var wg sync.WaitGroup
			errs := make(chan error, calls)
			for i := range calls {
				wg.Add(1)
				go func() { // Owner: the test. Exits when its call returned.
					defer wg.Done()
					text := fmt.Sprintf("%02d", i) + strings.Repeat(string(rune('a'+i%26)), 160<<10)
					res, err := s.CallTool(ctx, "echo", map[string]any{"text": text})
					switch {
					case err != nil:
						errs <- err
					case len(res.Content) != 1 || res.Content[0].Text != text:
						errs <- fmt.Errorf("call %d did not come back with its own %d bytes", i, len(text))
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				require.NoError(t, err)
			}
		})
	}
}
