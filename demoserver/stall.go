package demoserver

import (
	"context"
	"sync"
	"time"
)

// stallWindow is the server-wide stall of the StallAfter/StallFor fault:
// its start is fixed by the first request that asks, so every connection
// stalls at the same moment, as a server-wide pause does.
type stallWindow struct {
	once       sync.Once
	start, end time.Time
}

// wait blocks until the stall window is over if now is inside it, or until
// ctx ends (the request was cancelled).
func (w *stallWindow) wait(ctx context.Context, after, d time.Duration) {
	if d <= 0 {
		return
	}
	w.once.Do(func() {
		w.start = time.Now().Add(after)
		w.end = w.start.Add(d)
	})
	now := time.Now()
	if now.Before(w.start) || !now.Before(w.end) {
		return
	}
	t := time.NewTimer(w.end.Sub(now))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
