package transport

import "github.com/mcpengine/mcpengine/messages"

// Inbound is one received frame as a push connection hands it to the
// session: decoded once, by the transport that had to read its envelopes
// anyway (to tell which of its requests are answered), so that the session
// does not decode it again.
//
// Ownership: the callee of deliver owns Frame, and the messages' members
// that alias it; the Inbound itself and its Messages and Errors slices stay
// the transport's, which may reuse them once deliver returns (a POST reuses
// one Inbound for every event of its answer stream), so the callee copies
// the Message values it keeps.
type Inbound struct {
	Frame    []byte
	Messages []messages.Message
	// Errors are the frame's parts that are not valid messages
	// (messages.AppendDecodedFrameLimit's errors).
	Errors []error
	// ReplacedUTF8 reports strings of the frame whose invalid UTF-8 was
	// replaced by U+FFFD.
	ReplacedUTF8 bool

	// one backs Messages for the usual frame of a single message.
	one [1]messages.Message
}

// Decode decodes frame into in, with the frame size limit the transport
// applied (zero or less: messages.MaxMessageBytes). The messages alias
// frame, which must not change afterwards.
func (in *Inbound) Decode(frame []byte, limit int) {
	in.Frame = frame
	in.Messages, in.Errors, in.ReplacedUTF8 = messages.AppendDecodedFrameLimit(in.one[:0], frame, limit)
}

// Reset empties in for reuse, keeping nothing of its frame.
func (in *Inbound) Reset() {
	*in = Inbound{}
}

// DecodeInbound returns a new Inbound holding frame decoded (Decode).
func DecodeInbound(frame []byte, limit int) *Inbound {
	in := &Inbound{}
	in.Decode(frame, limit)
	return in
}

// Clone returns a copy of in that shares nothing the transport may reuse
// (its Messages and Errors are copied; the frame, owned by whoever holds
// the Inbound, is shared).
func (in *Inbound) Clone() *Inbound {
	c := &Inbound{Frame: in.Frame, ReplacedUTF8: in.ReplacedUTF8}
	c.Messages = append(c.one[:0], in.Messages...)
	if len(in.Errors) > 0 {
		c.Errors = append([]error(nil), in.Errors...)
	}
	return c
}
