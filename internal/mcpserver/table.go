package mcpserver

import "sync"

// Table holds the live sessions of one endpoint by their ids: what a
// request's session id is looked up in, and what closing the endpoint
// ends. Its zero value is ready; it is safe for concurrent use.
type Table[S comparable] struct {
	mu     sync.Mutex
	closed bool
	m      map[string]S
}

// Add registers s under id and runs onAdd (nil: nothing) under the
// table's lock, so that what it counts is never counted for a session a
// Close has already swept; it reports false, running nothing, once the
// table is closed.
func (t *Table[S]) Add(id string, s S, onAdd func()) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	if t.m == nil {
		t.m = make(map[string]S)
	}
	t.m[id] = s
	if onAdd != nil {
		onAdd()
	}
	return true
}

// Get finds the session registered under id.
func (t *Table[S]) Get(id string) (S, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.m[id]
	return s, ok
}

// Remove forgets s if id still names it (later lookups of id find
// nothing), and reports whether it did.
func (t *Table[S]) Remove(id string, s S) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if cur, ok := t.m[id]; !ok || cur != s {
		return false
	}
	delete(t.m, id)
	return true
}

// All returns the live sessions.
func (t *Table[S]) All() []S {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]S, 0, len(t.m))
	for _, s := range t.m {
		out = append(out, s)
	}
	return out
}

// IDs returns the live sessions' ids.
func (t *Table[S]) IDs() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, len(t.m))
	for id := range t.m {
		out = append(out, id)
	}
	return out
}

// Close refuses new sessions from now on and returns the live ones, for
// the caller to end.
func (t *Table[S]) Close() []S {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	return t.All()
}

// Closed reports whether Close was called.
func (t *Table[S]) Closed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}
