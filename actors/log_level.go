package actors

import (
	"github.com/mcpengine/mcpengine/messages"
)

// logLevel is the level a session's user asked for, and in the modern era
// the request _meta that names it: derived from the negotiated one
// (shared by the server's sessions, so never changed in place) and kept
// until either changes. One pointer in actorOnly, so that sessions which
// never set a level pay 8 bytes.
type logLevel struct {
	level      string
	base, meta *messages.RequestMeta
}

// emptyResult answers a logging/setLevel the session kept for itself.
var emptyResult = messages.RawMessage(`{}`)

// setLevelLocally takes a caller's logging/setLevel in the 2026-07-28 era,
// which has no such method: the level is the session's, and every later
// request names it in _meta (messages.MetaLogLevel), the era's only way
// to ask for notifications/message. The call succeeds without the wire;
// a level that is not one of the eight fails it as the server would have
// (-32602), before any request carries it.
func (a *sessionActor) setLevelLocally(c *Call) {
	var p messages.SetLevelParams
	if err := messages.Unmarshal(c.Params, &p); err != nil || !p.Level.Valid() {
		c.finish(a, nil, &messages.WireError{Code: messages.CodeInvalidParams,
			Message: "logging/setLevel: level must be one of debug, info, notice, warning, error, critical, alert, emergency, not " + string(p.Level)})
		return
	}
	a.setLogLevel(string(p.Level))
	c.finish(a, emptyResult, nil)
}

// setLogLevel records the level: replayed by logging/setLevel after a
// legacy reconnect, carried in every request's _meta in the modern era.
func (a *sessionActor) setLogLevel(level string) {
	if ll := a.sh.actorOnly.logLevel; ll != nil && ll.level == level {
		return
	}
	a.sh.actorOnly.logLevel = &logLevel{level: level}
}

// logLevel is the recorded level, "" for none.
func (a *sessionActor) logLevel() string {
	if ll := a.sh.actorOnly.logLevel; ll != nil {
		return ll.level
	}
	return ""
}

// requestMeta is the _meta of a caller's request in the modern era: the
// negotiated one, with the session's log level when it has one.
func (a *sessionActor) requestMeta(neg *Negotiated) *messages.RequestMeta {
	ll := a.sh.actorOnly.logLevel
	if ll == nil || ll.level == "" || neg.requestMeta == nil {
		return neg.requestMeta
	}
	if ll.base != neg.requestMeta {
		ll.base, ll.meta = neg.requestMeta, neg.requestMeta.WithLogLevel(messages.LoggingLevel(ll.level))
	}
	return ll.meta
}
