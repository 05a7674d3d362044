package actors

// pendingTable is the session actor's sent requests by id. Most sessions
// have at most one request in flight at a time (an idle one has none, its
// handshake had one at a time), so a lone request sits in a slot and the
// map is made only when a second one is in flight at once: an idle session
// carries no map, and neither does one calling one request at a time. Once
// made, the map stays (a session that ran requests side by side will
// again, and dropping it each time it empties would cost an allocation
// per burst).
//
// Only the session actor touches it.
type pendingTable struct {
	lone *Call // the one request in flight while many is nil
	many map[int64]*Call
}

func (p *pendingTable) len() int {
	if p.many != nil {
		return len(p.many)
	}
	if p.lone != nil {
		return 1
	}
	return 0
}

func (p *pendingTable) get(id int64) *Call {
	if p.many != nil {
		return p.many[id]
	}
	if p.lone != nil && p.lone.id == id {
		return p.lone
	}
	return nil
}

// put records c under c.id, which no pending request has.
func (p *pendingTable) put(c *Call) {
	switch {
	case p.many != nil:
		p.many[c.id] = c
	case p.lone == nil:
		p.lone = c
	default:
		p.many = make(map[int64]*Call, 2)
		p.many[p.lone.id] = p.lone
		p.many[c.id] = c
		p.lone = nil
	}
}

func (p *pendingTable) delete(id int64) {
	if p.many != nil {
		delete(p.many, id)
		return
	}
	if p.lone != nil && p.lone.id == id {
		p.lone = nil
	}
}

// each calls f for every pending request. f may delete the request it is
// given, and may put new ones, which each may or may not visit (as a range
// over a map).
func (p *pendingTable) each(f func(id int64, c *Call)) {
	if p.many != nil {
		for id, c := range p.many {
			f(id, c)
		}
		return
	}
	if c := p.lone; c != nil {
		f(c.id, c)
	}
}
