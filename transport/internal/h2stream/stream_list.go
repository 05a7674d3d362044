package h2stream

// streamList is a FIFO of a connection's streams, linked through the
// streams themselves (no allocation per entry). A stream is on at most
// one list at a time: the window queue while its body waits for the
// connection's send window, then the header waits. Guarded by
// clientConn.mu, as are the streams' links.
type streamList struct {
	head, tail *stream
}

// push appends s, which is on no list.
func (l *streamList) push(s *stream) {
	s.listPrev, s.listNext, s.list = l.tail, nil, l
	if l.tail != nil {
		l.tail.listNext = s
	} else {
		l.head = s
	}
	l.tail = s
}

// unlist takes s off the list it is on, if any.
func unlist(s *stream) {
	l := s.list
	if l == nil {
		return
	}
	if s.listPrev != nil {
		s.listPrev.listNext = s.listNext
	} else {
		l.head = s.listNext
	}
	if s.listNext != nil {
		s.listNext.listPrev = s.listPrev
	} else {
		l.tail = s.listPrev
	}
	s.listPrev, s.listNext, s.list = nil, nil, nil
}
