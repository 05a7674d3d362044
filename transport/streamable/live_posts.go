package streamable

// livePosts is the posts whose goroutine runs or is about to (started,
// or kept for their caller): Close cancels them. As with inflight, a lone
// post sits in a slot and a map is made only while two or more are live,
// so that a session with one call in flight holds no map (a map of one
// entry costs a group of eight slots and its header, ~190 bytes).
//
// Guarded by conn.mu, except a set Close took out of its connection,
// which is Close's alone.
type livePosts struct {
	lone *post // the one live post while many is nil
	many map[*post]struct{}
}

// add records p, which is not live yet.
func (s *livePosts) add(p *post) {
	switch {
	case s.many != nil:
		s.many[p] = struct{}{}
	case s.lone == nil:
		s.lone = p
	default:
		s.many = map[*post]struct{}{s.lone: {}, p: {}}
		s.lone = nil
	}
}

// remove forgets p, if it is live. The map is dropped once it empties.
func (s *livePosts) remove(p *post) {
	if s.many != nil {
		delete(s.many, p)
		if len(s.many) == 0 {
			s.many = nil
		}
		return
	}
	if s.lone == p {
		s.lone = nil
	}
}

// each calls f for every live post.
func (s *livePosts) each(f func(*post)) {
	if s.lone != nil {
		f(s.lone)
	}
	for p := range s.many {
		f(p)
	}
}
