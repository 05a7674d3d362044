package demoserver

import (
	"strconv"

	"github.com/mcpengine/mcpengine/messages"
)

// toolLog: {level, message} -> notifications/message (logger "demoserver",
// data = message) if level is at or above the session's level; returns
// "sent" or "filtered".
func toolLog(r *request, buf []byte) ([]byte, *messages.WireError) {
	var a struct {
		Level   messages.LoggingLevel `json:"level"`
		Message string                `json:"message"`
	}
	if ok, msg := decodeArgs(r, &a); !ok {
		return toolError(buf, msg)
	}
	l, ok := parseLevel(a.Level)
	if !ok {
		return toolError(buf, "unknown level: "+string(a.Level))
	}
	var data [256]byte
	if r.s.logMessage(l, "demoserver", appendString(data[:0], a.Message)) {
		return appendTextResult(buf, "sent", nil, false), nil
	}
	return appendTextResult(buf, "filtered", nil, false), nil
}

// toolNotify: {kind} -> notifications/{tools,resources,prompts}/list_changed.
func toolNotify(r *request, buf []byte) ([]byte, *messages.WireError) {
	var a struct {
		Kind string `json:"kind"`
	}
	if ok, msg := decodeArgs(r, &a); !ok {
		return toolError(buf, msg)
	}
	var method string
	switch a.Kind {
	case "tools":
		method = messages.NotificationToolsListChanged
	case "resources":
		method = messages.NotificationResourcesListChanged
	case "prompts":
		method = messages.NotificationPromptsListChanged
	case "listen_end":
		if !r.modern {
			// The handshake era has no listens: ending all of them ends
			// none, which is no error (a value the tool's schema admits
			// must not fail it: load tests generate arguments from it).
			return appendTextResult(buf, "ended 0 listens (no subscriptions/listen before 2026-07-28)", nil, false), nil
		}
		n := r.s.srv.listens.endAll()
		return appendTextResult(buf, "ended "+strconv.Itoa(n)+" listens", nil, false), nil
	default:
		return toolError(buf, `kind must be "tools", "resources" or "prompts"`)
	}
	if r.modern {
		n := r.s.srv.notifyListens(method)
		return appendTextResult(buf, "sent "+method+" on "+strconv.Itoa(n)+" listens", nil, false), nil
	}
	r.s.notify(method, nil)
	return appendTextResult(buf, "sent "+method, nil, false), nil
}

// toolTouch: {uri} -> notifications/resources/updated for uri if the client
// subscribed to it; returns "notified" or "not subscribed".
func toolTouch(r *request, buf []byte) ([]byte, *messages.WireError) {
	var a struct {
		URI string `json:"uri"`
	}
	if ok, msg := decodeArgs(r, &a); !ok {
		return toolError(buf, msg)
	}
	if r.modern {
		if r.s.srv.touchListens(a.URI) == 0 {
			return appendTextResult(buf, "not subscribed", nil, false), nil
		}
		return appendTextResult(buf, "notified", nil, false), nil
	}
	if !r.s.subscribed(a.URI) {
		return appendTextResult(buf, "not subscribed", nil, false), nil
	}
	var p [256]byte
	params := append(appendString(append(p[:0], `{"uri":`...), a.URI), '}')
	r.s.notify(messages.NotificationResourcesUpdated, params)
	return appendTextResult(buf, "notified", nil, false), nil
}
