package demoserver

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/mcpengine/mcpengine/messages"
)

func TestStallWindowHoldsRequestsInsideItOnly(t *testing.T) {
	var w stallWindow
	ctx := context.Background()
	start := time.Now()
	w.wait(ctx, 30*time.Millisecond, 100*time.Millisecond) // fixes the window, before it
	assert.Less(t, time.Since(start), 30*time.Millisecond, "before the window: no wait")

	time.Sleep(time.Until(w.start) + time.Millisecond)
	w.wait(ctx, 0, 100*time.Millisecond) // the window is fixed by the first call
	assert.False(t, time.Now().Before(w.end), "inside the window: waits until its end")

	before := time.Now()
	w.wait(ctx, 0, 100*time.Millisecond)
	assert.Less(t, time.Since(before), 30*time.Millisecond, "after the window: no wait")

	var w2 stallWindow
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	w2.wait(cctx, 0, time.Hour) // the window starts now and would last an hour
	assert.Error(t, cctx.Err(), "a cancelled request stops waiting")
}

func TestBadOutputBreaksTheEchoSchema(t *testing.T) {
	c, _ := start(t, Options{BadOutput: true})
	m := c.call(messages.MethodToolsCall, map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}})
	assert.Contains(t, string(m.Result), `"structuredContent":{"echo":"x"}`)
}
