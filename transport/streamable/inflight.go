package streamable

import "github.com/mcpengine/mcpengine/messages"

// inflight is the connection's requests sent and not yet answered, by id.
// Nearly every session has at most one call in flight at a time, so a
// lone request sits in a slot and a map is made only when a second one is
// in flight beside it: a map of one entry costs a whole group of eight
// slots (with its header, ~400 bytes per busy session). The map is
// dropped once it empties, so that an idle session keeps no map from its
// last burst.
//
// Guarded by conn.mu.
type inflight struct {
	lone *pending // the one request in flight while many is nil
	many map[messages.ID]*pending
}

// get returns the request of id, or nil.
func (t *inflight) get(id messages.ID) *pending {
	if t.many != nil {
		return t.many[id]
	}
	if t.lone != nil && t.lone.id == id {
		return t.lone
	}
	return nil
}

// add records each of pend under its id, in place of any request of the
// same id.
func (t *inflight) add(pend []pending) {
	for i := range pend {
		pd := &pend[i]
		switch {
		case t.many != nil:
			t.many[pd.id] = pd
		case t.lone == nil || t.lone.id == pd.id:
			t.lone = pd
		default:
			// Room for the lone one and the rest of pend: a frame of many
			// requests grows the map once.
			t.many = make(map[messages.ID]*pending, 1+len(pend)-i)
			t.many[t.lone.id] = t.lone
			t.many[pd.id] = pd
			t.lone = nil
		}
	}
}

// delete removes the request of id, if any.
func (t *inflight) delete(id messages.ID) {
	if t.many != nil {
		delete(t.many, id)
		if len(t.many) == 0 {
			t.many = nil
		}
		return
	}
	if t.lone != nil && t.lone.id == id {
		t.lone = nil
	}
}

// forget removes pd, unless a later request of the same id took its
// place.
func (t *inflight) forget(pd *pending) {
	if t.get(pd.id) == pd {
		t.delete(pd.id)
	}
}
