package demoserver

import (
	"net/http"
	"time"

	"github.com/mcpengine/mcpengine/internal/httpserve"
	"github.com/mcpengine/mcpengine/internal/mcpserver"

	"github.com/mcpengine/mcpengine/transport"
)

// URL paths of the combined handler (Server.HTTPHandler).
const (
	// PathStreamable is the Streamable HTTP MCP endpoint (POST, GET, DELETE).
	PathStreamable = "/mcp"
	// PathSSE opens a legacy HTTP+SSE (2024-11-05) stream.
	PathSSE = "/sse"
	// PathMessage takes the legacy transport's POSTed messages
	// (?sessionId=…, as advertised by the endpoint event).
	PathMessage = "/message"
	// PathWebSocket upgrades to a WebSocket speaking the "mcp" subprotocol.
	PathWebSocket = "/ws"
)

// HTTP header names, in Go's canonical form (matching is case-insensitive).
const (
	HeaderSessionID       = mcpserver.HeaderSessionID
	HeaderProtocolVersion = mcpserver.HeaderProtocolVersion
	HeaderLastEventID     = mcpserver.HeaderLastEventID
)

// WebSocketSubprotocol is the subprotocol a WebSocket client must offer.
const WebSocketSubprotocol = "mcp"

// AnswerMode says how the Streamable HTTP handler answers a POST that
// carries requests.
type AnswerMode int

const (
	// AnswerAuto answers with an SSE stream when something may be sent
	// before the response (a request carries a progress token, or calls
	// the sample, elicit or roots tool), and with application/json
	// otherwise.
	AnswerAuto AnswerMode = iota
	// AnswerJSON always answers application/json. Messages that would have
	// gone on the POST's stream go to the standalone GET stream instead
	// (buffered until one is open).
	AnswerJSON
	// AnswerSSE always answers with an SSE stream.
	AnswerSSE
)

// String returns "auto", "json" or "sse".
func (m AnswerMode) String() string {
	switch m {
	case AnswerJSON:
		return "json"
	case AnswerSSE:
		return "sse"
	}
	return "auto"
}

// ParseAnswerMode parses "auto", "json" or "sse".
func ParseAnswerMode(s string) (AnswerMode, bool) {
	switch s {
	case "auto", "":
		return AnswerAuto, true
	case "json":
		return AnswerJSON, true
	case "sse":
		return AnswerSSE, true
	}
	return AnswerAuto, false
}

// HTTPOptions configure the HTTP transports of a Server. The zero value is
// a well-behaved server; the fault fields make it misbehave on purpose.
//
// Counting, for the faults that take a number: "request POSTs" are POSTs
// whose body holds at least one JSON-RPC request (initialize included);
// POSTs of notifications or responses and GETs are not counted, so a test
// can predict the numbers whatever its client does in the background.
type HTTPOptions struct {
	// AnswerMode picks JSON or SSE answers to request POSTs (default
	// AnswerAuto).
	AnswerMode AnswerMode
	// SSERetry is the retry field of every stream's priming event: how long
	// a client waits before resuming a dropped stream (default 100ms).
	SSERetry time.Duration
	// NoPriming leaves out the priming event (an event with an id and no
	// data) that starts every SSE stream, as servers before 2025-11-25 do.
	NoPriming bool
	// HistoryLimit bounds how many already-sent events each stream keeps
	// for replay to a client resuming with Last-Event-ID, and how many
	// undelivered messages the standalone stream buffers while no GET
	// stream is open (default 1024).
	HistoryLimit int
	// NoGetStream answers 405 to a GET that would open the standalone
	// stream. GETs that resume a stream (Last-Event-ID) still work.
	NoGetStream bool
	// NoDelete answers 405 to DELETE (sessions cannot be ended by the
	// client).
	NoDelete bool
	// SessionIdleTimeout ends a session that has had no HTTP request in
	// progress for this long (0: never).
	SessionIdleTimeout time.Duration
	// MaxBodyBytes caps a POST body (default transport.DefaultMaxFrameBytes;
	// larger bodies get 413). It also caps WebSocket messages.
	MaxBodyBytes int64
	// AllowedHosts lists Host values accepted besides loopback names
	// ("name" with any port, "name:port"); see httpserve.Guard. A request
	// that arrived on a loopback address naming another host gets 403:
	// the DNS-rebinding protection the specification requires. Listing
	// any applies the check on every address.
	AllowedHosts []string
	// AllowedOrigins lists Origin header values accepted besides those
	// naming an accepted host; any other Origin gets 403.
	AllowedOrigins []string
	// BodyTimeout bounds the reading of a request body (default
	// httpserve.DefaultBodyTimeout; negative: none); past it the request
	// gets 408 and its connection is closed.
	BodyTimeout time.Duration
	// ReadHeaderTimeout bounds the reading of a request's headers
	// (ListenHTTP only; default mcpserver.DefaultReadHeaderTimeout).
	ReadHeaderTimeout time.Duration
	// MaxConnections caps the connections open at once (ListenHTTP only;
	// default mcpserver.DefaultMaxConnections; negative: no cap).
	MaxConnections int

	// FailNth (fault) answers the Nth request POST of the handler with
	// FailStatus instead of handling it (counted over all sessions, from 1;
	// Streamable HTTP and legacy POSTs, each handler counting its own).
	FailNth int
	// FailEvery (fault) answers every Nth request POST with FailStatus.
	FailEvery int
	// FailGets (fault) answers the first N GETs that would open the
	// standalone stream with FailStatus (Streamable HTTP).
	FailGets int
	// FailStatus is the status of the failures above (default 503).
	FailStatus int
	// DropStreamEvery (fault) drops the connection of every Nth SSE answer
	// stream of Streamable HTTP (1: every one) before the response is
	// written, after DropAfterEvents events. The stream lives on: the
	// client gets the rest, response included, exactly once, by resuming
	// with GET and Last-Event-ID. A resumed stream is not dropped again.
	// With NoPriming a stream dropped before its first event cannot be
	// resumed (the client has no event id): the call is lost, as with a
	// server that is not resumable.
	DropStreamEvery int
	// DropAfterEvents is how many events a dropped stream delivers first
	// (default 1: just the priming event).
	DropAfterEvents int
	// DropAbort makes a drop abort the connection (the client sees a
	// truncated body) instead of ending the response cleanly.
	DropAbort bool
	// ExpireAfter (fault) expires a Streamable HTTP session after this many
	// request POSTs: the next request carrying its id gets 404. See also
	// StreamableHandler.ExpireSession and SSEHandler.ExpireSession.
	ExpireAfter int

	// LegacyOnly makes the combined handler behave like a 2024-11-05
	// server at PathStreamable: a POST gets LegacyProbeStatus and a GET
	// opens a legacy SSE stream, so clients fall back to HTTP+SSE.
	LegacyOnly bool
	// LegacyProbeStatus is what a POST to PathStreamable gets in LegacyOnly
	// mode (default 405; 400 and 404 also mean "fall back").
	LegacyProbeStatus int
	// LegacyEndpointOrigin (test only) makes the legacy endpoint event
	// advertise an absolute URL on this origin (e.g.
	// "http://evil.example:1") instead of a relative one, so a client's
	// refusal of a cross-origin endpoint can be tested.
	LegacyEndpointOrigin string
	// MessagePath is the path the legacy endpoint event advertises
	// (default PathMessage).
	MessagePath string

	// SessionEnded, if set, is called once per HTTP or WebSocket session
	// after it ended, with Serve's result (ErrExitRequested when the
	// ExitAfter fault fired: the CLI exits the process then).
	SessionEnded func(sessionID string, err error)
}

const (
	defaultSSERetry     = 100 * time.Millisecond
	defaultHistoryLimit = 1024
	// retainedStreams is how many completed answer streams a session keeps
	// for clients that resume after the response was sent.
	retainedStreams = 64
)

// guard is the Host, Origin and body-deadline check of every request.
func (o *HTTPOptions) guard() *httpserve.Guard {
	return &httpserve.Guard{AllowedHosts: o.AllowedHosts, AllowedOrigins: o.AllowedOrigins, BodyTimeout: o.BodyTimeout}
}

func (o HTTPOptions) withDefaults() HTTPOptions {
	if o.SSERetry <= 0 {
		o.SSERetry = defaultSSERetry
	}
	if o.HistoryLimit <= 0 {
		o.HistoryLimit = defaultHistoryLimit
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = transport.DefaultMaxFrameBytes
	}
	if o.FailStatus == 0 {
		o.FailStatus = http.StatusServiceUnavailable
	}
	if o.DropAfterEvents <= 0 {
		o.DropAfterEvents = 1
	}
	if o.LegacyProbeStatus == 0 {
		o.LegacyProbeStatus = http.StatusMethodNotAllowed
	}
	if o.MessagePath == "" {
		o.MessagePath = PathMessage
	}
	return o
}
