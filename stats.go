package mcpengine

import "github.com/mcpengine/mcpengine/actors"

// Stats is a snapshot of a session's counters, taken by Session.Stats.
// Each counter is read atomically on its own; the snapshot as a whole is
// not one instant (a frame may be counted in FramesIn and its request not
// yet in Requests). Counters cover the session's whole life, across
// reconnects.
type Stats struct {
	// FramesIn counts the frames received (a batch is one frame).
	FramesIn uint64
	// FramesReadByCallers counts the frames of FramesIn that a caller
	// waiting for its answer read on its own goroutine rather than the
	// connection's reader goroutine (stdio and memory connections).
	FramesReadByCallers uint64
	// FramesOut counts the frames sent.
	FramesOut uint64
	// InvalidFrames counts frames (or batch members) that were not valid
	// JSON-RPC: dropped, except that a broken answer with a recognisable
	// id fails its request with a *ProtocolError.
	InvalidFrames uint64
	// InvalidUTF8Frames counts frames accepted although their strings held
	// invalid UTF-8, each bad sequence replaced by U+FFFD (the JSON is
	// otherwise valid; dropping it would leave its caller waiting).
	InvalidUTF8Frames uint64
	// LateResponses counts answers to requests no longer pending (timed
	// out, cancelled) or never sent.
	LateResponses uint64
	// Restarts counts reconnects scheduled after a failed connection (and
	// restarts of the session's actor after a panic).
	Restarts uint64
	// Requests counts the requests handed to the session: sent, queued
	// or refused.
	Requests uint64
	// Timeouts counts requests that got no answer before their deadline.
	Timeouts uint64
	// CallbacksDropped counts notifications, progress and state events not
	// delivered because the session's callback queue was full (a callback
	// that never returns).
	CallbacksDropped uint64
	// LocalResourceFailures counts requests and connections that failed
	// because this process ran out of descriptors or buffer memory
	// (*LocalResourceError).
	LocalResourceFailures uint64
	// Queued is the number of calls waiting, now, for the session to be
	// ready.
	Queued int64
}

func statsOf(s *actors.Stats) Stats {
	return Stats{
		FramesIn:              s.FramesIn.Load(),
		FramesReadByCallers:   s.FramesReadByCallers.Load(),
		FramesOut:             s.FramesOut.Load(),
		InvalidFrames:         s.InvalidFrames.Load(),
		InvalidUTF8Frames:     s.InvalidUTF8Frames.Load(),
		LateResponses:         s.LateResponses.Load(),
		Restarts:              s.Restarts.Load(),
		Requests:              s.Requests.Load(),
		Timeouts:              s.Timeouts.Load(),
		CallbacksDropped:      s.CallbacksDropped.Load(),
		LocalResourceFailures: s.LocalResourceFailures.Load(),
		Queued:                s.Queued.Load(),
	}
}
