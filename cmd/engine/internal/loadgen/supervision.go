package loadgen

import (
	"sync"
	"time"

	"github.com/mcpengine/mcpengine"
)

// supervision follows one slot's sessions through the engine's own
// recovery: a connection the server dropped (a crash, a restart) is
// reconnected by the engine, not by the run, so the run's connects stay
// the same while the session spends time not ready. Without this a run
// through server restarts shows only the calls that failed meanwhile.
type supervision struct {
	mu         sync.Mutex
	reconnects int64         // back to ready after having been ready
	notReady   time.Duration // closed spells of not ready
	downSince  time.Time     // zero while ready (or never ready yet)
	restarts   uint64        // Stats().Restarts of the sessions closed so far
	cur        *mcpengine.Session
	stopWatch  func()
}

// watch follows s, the slot's new session (ready when it is called).
func (sv *supervision) watch(s *mcpengine.Session) {
	stop := s.WatchState(func(c mcpengine.StateChange) {
		sv.mu.Lock()
		defer sv.mu.Unlock()
		switch {
		case c.To == mcpengine.StateClosed:
			// Closed by the run (churn, the end) or for good: not a
			// spell the engine recovers from.
		case c.From == mcpengine.StateReady:
			if sv.downSince.IsZero() {
				sv.downSince = c.At
			}
		case c.To == mcpengine.StateReady && !sv.downSince.IsZero():
			sv.notReady += c.At.Sub(sv.downSince)
			sv.downSince = time.Time{}
			sv.reconnects++
		}
	})
	sv.mu.Lock()
	sv.cur, sv.stopWatch = s, stop
	sv.mu.Unlock()
}

// release stops following the slot's session, which the run is closing, keeping its
// restarts and ending a spell of not ready at now.
func (sv *supervision) release(now time.Time) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.stopWatch != nil {
		sv.stopWatch()
		sv.stopWatch = nil
	}
	if sv.cur != nil {
		sv.restarts += sv.cur.Stats().Restarts
		sv.cur = nil
	}
	if !sv.downSince.IsZero() {
		sv.notReady += now.Sub(sv.downSince)
		sv.downSince = time.Time{}
	}
}

// SupervisionStats are what the engine's supervision did during the run.
type SupervisionStats struct {
	// Reconnects counts the sessions' returns to ready after the server
	// or the connection was lost (the engine reconnects on its own; the
	// run's connects do not count them).
	Reconnects int64 `json:"reconnects"`
	// Restarts is the engine's Stats().Restarts summed over the
	// sessions: reconnects scheduled after a failed connection.
	Restarts uint64 `json:"restarts"`
	// NotReady is the time sessions spent not ready after having been
	// ready, summed over the sessions (JSON: seconds); NotReadyNow, in
	// Progress only, the sessions not ready at the moment.
	NotReady    time.Duration `json:"-"`
	NotReadyS   float64       `json:"not_ready_s"`
	NotReadyNow int           `json:"-"`
}

// snapshot is the slot's figures so far, its current session counted as
// of now.
func (sv *supervision) snapshot(now time.Time) SupervisionStats {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	st := SupervisionStats{Reconnects: sv.reconnects, Restarts: sv.restarts, NotReady: sv.notReady}
	if sv.cur != nil {
		st.Restarts += sv.cur.Stats().Restarts
	}
	if !sv.downSince.IsZero() {
		st.NotReady += now.Sub(sv.downSince)
		st.NotReadyNow = 1
	}
	st.NotReadyS = st.NotReady.Seconds()
	return st
}

func (a *SupervisionStats) add(b SupervisionStats) {
	a.Reconnects += b.Reconnects
	a.Restarts += b.Restarts
	a.NotReady += b.NotReady
	a.NotReadyNow += b.NotReadyNow
	a.NotReadyS += b.NotReadyS
}
