package actors

import (
	"context"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// Messages of the session actor. Every one is sent as a pointer. Besides
// these, the actor receives *Call (from callers: send a request; answered
// by closing Call.Done) and *Notify (from callers: send a notification).
// Messages tagged with an epoch come from one connection's helpers and are
// ignored once that connection is gone.

// cancelCall is sent by a caller whose ctx ended (or Future.Cancel): forget
// the request and tell the server with notifications/cancelled. No reply.
type cancelCall struct {
	call   *Call
	reason error
}

// frameIn is sent by the reader goroutine with the valid messages of one
// received frame. No reply.
type frameIn struct {
	epoch uint64
	msgs  []messages.Message
	one   [1]messages.Message // msgs' backing array for the usual single message
}

// brokenAnswers is sent by the reader goroutine, after the frame's
// frameIn, with the broken answers of one frame whose id could be read,
// so that the requests they name fail at once. Its own message, so that
// frameIn, allocated for every frame, stays as small as it was. No reply.
type brokenAnswers struct {
	epoch   uint64
	answers []*messages.InvalidMessageError
}

// connFailed is sent by the reader goroutine when ReadFrame fails, and by
// the writer actor when WriteFrames fails. No reply.
type connFailed struct {
	epoch uint64
	err   error
}

// dialed is sent by the dial goroutine with the new connection or the
// error. Reply on taken.
type dialed struct {
	epoch uint64
	conn  transport.Conn
	err   error
	// taken gets true if the session took conn, false if it refused it
	// (a stale dial): then the dial goroutine closes it. Capacity 1.
	taken chan bool
}

// retryNow is sent by the backoff timer when it is time to reconnect. No reply.
type retryNow struct {
	epoch uint64
}

// sweepDue is sent by the deadline timer: expire overdue requests. No reply.
type sweepDue struct{}

// serverReplyReady is sent by a handler goroutine (sampling, elicitation,
// roots) with its answer: to a server request (id, of the connection of
// epoch), or to an input request of a call's round (input, whatever the
// connection). No reply.
type serverReplyReady struct {
	epoch  uint64
	id     messages.ID
	method string
	input  *inputAnswer
	result any
	err    error
}

// setRoots is sent by Session.SetRoots: answer roots/list with these from
// now on and tell the server the list changed. No reply.
type setRoots struct {
	roots []rootEntry
}

// trackSubscription is sent by the subscribe helpers after the server
// confirmed (or before unsubscribing) so that the session replays its
// subscriptions after every reconnect. No reply.
type trackSubscription struct {
	uri string
	on  bool
}

// trackLogLevel is sent by SetLogLevel after the server confirmed, so the
// level is replayed after every reconnect. No reply.
type trackLogLevel struct {
	level string
}

// closeSession is sent by Session.Close: fail everything, close the
// connection (bounded by ctx), stop. Answered by closing done.
type closeSession struct {
	ctx  context.Context
	done chan struct{}
}

// rootEntry is a root the client exposes (alias kept small for the API).
type rootEntry = messages.Root
