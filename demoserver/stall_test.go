package demoserver

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/mcpengine/mcpengine/messages"
)

// In a synctest bubble the clock moves only when every goroutine waits, so
// each wait is measured exactly, whatever the machine's load.
func TestStallWindowHoldsRequestsInsideItOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var w stallWindow
		ctx := context.Background()
		start := time.Now()
		w.wait(ctx, 30*time.Millisecond, 100*time.Millisecond) // fixes the window, before it
		assert.Equal(t, time.Duration(0), time.Since(start), "before the window: no wait")
		assert.Equal(t, start.Add(30*time.Millisecond), w.start)

		time.Sleep(time.Until(w.start) + time.Millisecond)
		w.wait(ctx, 0, 100*time.Millisecond) // the window is fixed by the first call
		assert.Equal(t, w.end, time.Now(), "inside the window: waits until its end")

		before := time.Now()
		w.wait(ctx, 0, 100*time.Millisecond)
		assert.Equal(t, time.Duration(0), time.Since(before), "after the window: no wait")

		var w2 stallWindow
		cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		before = time.Now()
		w2.wait(cctx, 0, time.Hour) // the window starts now and would last an hour
		assert.Error(t, cctx.Err(), "a cancelled request stops waiting")
		assert.Equal(t, 20*time.Millisecond, time.Since(before), "at the request's end, not the window's")
	})
}

func TestBadOutputBreaksTheEchoSchema(t *testing.T) {
	c, _ := start(t, Options{BadOutput: true})
	m := c.call(messages.MethodToolsCall, map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}})
	assert.Contains(t, string(m.Result), `"structuredContent":{"echo":"x"}`)
}
