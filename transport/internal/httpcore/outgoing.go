package httpcore

import (
	"sync"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// Outgoing is one message the session sent, with what the transport needs
// to know about it: all of it from what the session said of the message
// (transport.Message), none of it decoded from the frame.
type Outgoing struct {
	// Frame is a private copy: the session reuses its slices.
	Frame []byte
	// Requests holds the id of the request the message is, whose answer
	// the transport waits for; empty for a notification or a response.
	Requests []messages.ID
	// Initialize is set when the message is the initialize request.
	Initialize bool
	// Initialized is set for notifications/initialized: a server may send
	// its first notifications as soon as it arrives.
	Initialized bool
	// Subscribe is set for resources/subscribe: the updates it asks for
	// come on the standalone stream, which should be open by the time the
	// answer says the subscription holds.
	Subscribe bool
	// Notification is set for a notification: it is sent as a barrier
	// (see Scheduler).
	Notification bool
	// Cancel is the request a notifications/cancelled names (the client
	// gave up on it); not valid otherwise.
	Cancel messages.ID
	// Modern, for a 2026-07-28 request, is what its headers mirror; its
	// zero value otherwise (Modern.Set).
	Modern Modern

	// oneRequest backs Requests: no slice of its own to allocate.
	oneRequest [1]messages.ID
}

// OutgoingInto fills *o, which must be zero and must not be copied
// afterwards (Requests may point into it), from a message the
// session sent: the frame is copied, and the rest is what m says.
func OutgoingInto(o *Outgoing, m *transport.Message) {
	o.Frame = append([]byte(nil), m.Frame...)
	switch m.Kind {
	case messages.KindRequest:
		o.oneRequest[0] = m.ID
		o.Requests = o.oneRequest[:1:1]
		switch m.Method {
		case messages.MethodInitialize:
			o.Initialize = true
		case messages.MethodResourcesSubscribe:
			o.Subscribe = true
		}
		o.Modern, _ = modernRequest(m.Method, m.Params, m.Version)
	case messages.KindNotification:
		o.Notification = true
		switch m.Method {
		case messages.NotificationInitialized:
			o.Initialized = true
		case messages.NotificationCancelled:
			o.Cancel = m.Cancels
		}
	}
}

// MessageOf decodes a frame into the message the session would have said
// it is. Only a request transport's WriteFrames uses it, for a user of the
// plain transport.Conn contract: the session sends messages (Send), never
// frames, to a transport.RequestConn. A frame that is not one valid
// message (a batch, garbage) is still sent, as one that awaits no answer.
func MessageOf(frame []byte) transport.Message {
	m := transport.Message{Frame: frame}
	var one [1]messages.Message
	msgs, errs := messages.AppendDecodedFrame(one[:0], frame)
	if len(msgs) != 1 || len(errs) != 0 {
		return m
	}
	d := msgs[0]
	m.Kind, m.ID, m.Method, m.Params = d.Kind, d.ID, d.Method, d.Params
	if d.Kind == messages.KindNotification && d.Method == messages.NotificationCancelled && len(d.Params) > 0 {
		var p struct {
			RequestID messages.ID `json:"requestId"`
		}
		if messages.Unmarshal(d.Params, &p) == nil {
			m.Cancels = p.RequestID
		}
	}
	return m
}

// Inbound is what a transport needs from a received frame.
type Inbound struct {
	// Responses are the ids of the responses in the frame (valid ids only).
	Responses []messages.ID
	// Orphans are error responses without a usable id ("id": null, or no
	// id): a server sends them when it could not read the request.
	Orphans []*messages.WireError
	// Others counts requests and notifications (and undecodable parts).
	Others int
}

// Inspect sorts the envelopes of a received frame, already decoded (the
// transport decodes each received frame once and hands the session what
// it decoded, transport.Inbound). The ids are appended to ids[:0]: a
// caller that passes a small array of its own allocates nothing for a
// plain answer.
func Inspect(in *transport.Inbound, ids []messages.ID) Inbound {
	out := Inbound{Responses: ids[:0], Others: len(in.Errors)}
	for _, m := range in.Messages {
		switch {
		case m.Kind != messages.KindResponse:
			out.Others++
		case m.ID.IsValid():
			out.Responses = append(out.Responses, m.ID)
		case m.Error != nil:
			out.Orphans = append(out.Orphans, m.Error)
		}
	}
	return out
}

// ProtocolVersion returns the protocolVersion field of the success
// response with the given id among msgs, or "": needed once per session,
// for the initialize answer. messages.InitializeVersion reads it without
// sonic, which would compile decoders (milliseconds) for this one use.
func ProtocolVersion(msgs []messages.Message, id messages.ID) string {
	for _, m := range msgs {
		if m.ID != id || m.Result == nil {
			continue
		}
		if v, ok := messages.InitializeVersion(m.Result); ok {
			return v
		}
	}
	return ""
}

var inboundPool = sync.Pool{New: func() any { return new(transport.Inbound) }}

// GetInbound returns a pooled Inbound holding frame decoded with the
// connection's frame limit: a POST decodes each answer once, and the
// Inbound goes back to the pool (PutInbound) once delivered, since the
// session copies what it keeps (transport.Inbound).
func GetInbound(frame []byte, limit int) *transport.Inbound {
	in := inboundPool.Get().(*transport.Inbound)
	in.Decode(frame, limit)
	return in
}

// PutInbound returns in to the pool, keeping nothing of its frame.
func PutInbound(in *transport.Inbound) {
	in.Reset()
	inboundPool.Put(in)
}

// DeliverFailure delivers the synthesized CodeRequestFailed answer of
// request id (FailureAnswer) through the sink.
func (s *Sink) DeliverFailure(id messages.ID, f transport.RequestFailure) {
	in := GetInbound(FailureAnswer(id, f), 0)
	s.Deliver(in)
	PutInbound(in)
}
