package httpcore

import (
	"github.com/mcpengine/mcpengine/messages"
)

// Outgoing is one frame the session wrote, with what the transport needs
// to know about it.
type Outgoing struct {
	// Frame is a private copy: the session reuses its slices.
	Frame []byte
	// Requests are the ids of the requests in the frame, whose answers the
	// transport waits for.
	Requests []messages.ID
	// Initialize is set when the frame is the initialize request.
	Initialize bool
	// Initialized is set when the frame holds notifications/initialized:
	// a server may send its first notifications as soon as it arrives.
	Initialized bool
	// Subscribe is set when the frame holds resources/subscribe: the
	// updates it asks for come on the standalone stream, which should be
	// open by the time the answer says the subscription holds.
	Subscribe bool
	// Notification is set when the frame holds a notification: it is sent
	// as a barrier (see Scheduler).
	Notification bool
	// Cancels are the request ids named by notifications/cancelled in the
	// frame: the client gave up on them.
	Cancels []messages.ID
	// Modern, for a frame holding one 2026-07-28 request, is what its
	// headers mirror; its zero value otherwise (Modern.Set).
	Modern Modern

	// oneRequest backs Requests for a frame of one request (nearly all):
	// no slice of its own to allocate.
	oneRequest [1]messages.ID
}

// Classify copies frame and reads its envelope. A frame that does not
// decode (the engine does not write such frames) is still sent, as a
// frame that awaits no answer.
func Classify(frame []byte) Outgoing {
	var o Outgoing
	ClassifyInto(&o, frame)
	return o
}

// ClassifyInto is Classify into *o, which must be zero and must not be
// copied afterwards (Requests may point into it): the way for a caller
// that keeps o inside a struct of its own to allocate nothing but the
// frame's copy.
func ClassifyInto(o *Outgoing, frame []byte) {
	o.Frame = append([]byte(nil), frame...)
	// Once per written frame: the in-place decoder allocates nothing for a
	// plain message; the messages alias o.Frame, which nobody modifies.
	var one [1]messages.Message
	msgs, _ := messages.AppendDecodedFrame(one[:0], o.Frame)
	for _, m := range msgs {
		switch m.Kind {
		case messages.KindRequest:
			if o.Requests == nil {
				o.Requests = o.oneRequest[:0:1]
			}
			o.Requests = append(o.Requests, m.ID)
			switch m.Method {
			case messages.MethodInitialize:
				o.Initialize = true
			case messages.MethodResourcesSubscribe:
				o.Subscribe = true
			}
			if len(msgs) == 1 {
				o.Modern, _ = modernRequest(m.Method, m.Params)
			}
		case messages.KindNotification:
			o.Notification = true
			if m.Method == messages.NotificationInitialized {
				o.Initialized = true
			}
			if m.Method == messages.NotificationCancelled && len(m.Params) > 0 {
				var p struct {
					RequestID messages.ID `json:"requestId"`
				}
				if messages.Unmarshal(m.Params, &p) == nil && p.RequestID.IsValid() {
					o.Cancels = append(o.Cancels, p.RequestID)
				}
			}
		}
	}
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

// Inspect reads the envelopes of a received frame. It runs once per
// received frame: the in-place decoder allocates nothing for a plain
// message, and nothing of the messages outlives the call but their ids
// (never aliases) and error objects.
// The ids are appended to ids[:0]: a caller that passes a small array of
// its own allocates nothing for a plain answer.
func Inspect(frame []byte, ids []messages.ID) Inbound {
	in := Inbound{Responses: ids[:0]}
	var one [1]messages.Message
	msgs, errs := messages.AppendDecodedFrame(one[:0], frame)
	in.Others = len(errs)
	for _, m := range msgs {
		switch {
		case m.Kind != messages.KindResponse:
			in.Others++
		case m.ID.IsValid():
			in.Responses = append(in.Responses, m.ID)
		case m.Error != nil:
			in.Orphans = append(in.Orphans, m.Error)
		}
	}
	return in
}

// ProtocolVersion returns the protocolVersion field of the success
// response with the given id in frame, or "". It decodes the frame again:
// it is needed once per session, for the initialize answer. The frame
// scanner and messages.InitializeVersion read it without sonic, which
// would compile decoders (milliseconds) for this one use.
func ProtocolVersion(frame []byte, id messages.ID) string {
	var buf [1]messages.Message
	msgs, _ := messages.AppendDecodedFrame(buf[:0], frame)
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
