package mcpserver

// Event is one event of a resumable SSE stream: a JSON-RPC frame, or a
// priming event (nil Data) that gives the client an id to resume from
// before anything else was sent.
type Event struct {
	Seq      int64
	Data     []byte
	Response bool // carries a JSON-RPC response
}

// EventLog is the history of one resumable stream: every event gets the
// next sequence number (from 1), and the events already handed to a
// connection are kept, up to a limit, for a client that lost them to
// resume with Last-Event-ID. It does no locking: its owner guards it with
// its own mutex, together with whatever else routes frames to it.
type EventLog struct {
	events  []Event // oldest first
	nextSeq int64   // seq of the last event appended
	sent    int64   // highest seq handed to a connection

	// Lossy logs (a session's standalone stream) drop their oldest events
	// beyond the limit whether sent or not, so that a client that never
	// listens cannot make them grow without bound; the others drop only
	// sent ones, since their answers must get through.
	Lossy bool
}

// Append adds an event and trims the history to limit; it returns the
// event's seq.
func (l *EventLog) Append(data []byte, response bool, limit int) int64 {
	l.nextSeq++
	l.events = append(l.events, Event{Seq: l.nextSeq, Data: data, Response: response})
	l.trim(limit)
	return l.nextSeq
}

// trim bounds the history. It reslices and never writes to the backing
// array: a connection may be reading a slice After returned without the
// owner's lock.
func (l *EventLog) trim(limit int) {
	over := len(l.events) - limit
	if over <= 0 {
		return
	}
	if !l.Lossy {
		k := 0
		for k < over && l.events[k].Seq <= l.sent {
			k++
		}
		over = k
	}
	l.events = l.events[over:]
}

// After returns the events with a seq greater than seq. The slice is
// shared and read-only; it stays valid after the owner's lock is let go.
func (l *EventLog) After(seq int64) []Event {
	for i, e := range l.events {
		if e.Seq > seq {
			return l.events[i:len(l.events):len(l.events)]
		}
	}
	return nil
}

// All returns every event kept (shared, read-only).
func (l *EventLog) All() []Event { return l.events }

// MarkSent records that the events up to seq were handed to a connection,
// which makes them eligible for trimming.
func (l *EventLog) MarkSent(seq int64, limit int) {
	l.sent = max(l.sent, seq)
	l.trim(limit)
}

// Sent is the highest seq handed to a connection.
func (l *EventLog) Sent() int64 { return l.sent }

// Last is the seq of the last event appended (0 for none).
func (l *EventLog) Last() int64 { return l.nextSeq }

// Undelivered reports whether some event was never handed to a
// connection.
func (l *EventLog) Undelivered() bool {
	return len(l.events) > 0 && l.events[len(l.events)-1].Seq > l.sent
}

// Release drops the history of a stream whose every event was delivered
// and that will get no more: a late resumption finds it empty.
func (l *EventLog) Release() { l.events = nil }
