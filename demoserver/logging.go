package demoserver

import (
	"github.com/mcpengine/mcpengine/messages"
)

type level int32

const (
	levelDebug level = iota
	levelInfo
	levelNotice
	levelWarning
	levelError
	levelCritical
	levelAlert
	levelEmergency
)

var levelNames = [...]messages.LoggingLevel{
	messages.LoggingLevelDebug,
	messages.LoggingLevelInfo,
	messages.LoggingLevelNotice,
	messages.LoggingLevelWarning,
	messages.LoggingLevelError,
	messages.LoggingLevelCritical,
	messages.LoggingLevelAlert,
	messages.LoggingLevelEmergency,
}

func parseLevel(s messages.LoggingLevel) (level, bool) {
	for i, n := range levelNames {
		if n == s {
			return level(i), true
		}
	}
	return 0, false
}

// handleSetLevel stores the session's minimum level for notifications/message
// (initially info).
func handleSetLevel(r *request, buf []byte) ([]byte, *messages.WireError) {
	var p messages.SetLevelParams
	if werr := decodeParams(r.params, &p); werr != nil {
		return buf, werr
	}
	l, ok := parseLevel(p.Level)
	if !ok {
		return buf, invalidParams("unknown logging level " + string(p.Level))
	}
	r.s.logLevel.Store(int32(l))
	return append(buf, "{}"...), nil
}

// logMessage sends notifications/message if l is at or above the session's
// level and reports whether it did.
func (s *session) logMessage(l level, logger string, data []byte) bool {
	if l < level(s.logLevel.Load()) {
		return false
	}
	p := s.w.getBuf()
	p = append(p, `{"level":`...)
	p = appendString(p, string(levelNames[l]))
	p = append(p, `,"logger":`...)
	p = appendString(p, logger)
	p = append(p, `,"data":`...)
	p = append(p, data...)
	p = append(p, '}')
	s.notify(messages.NotificationMessage, p)
	s.w.putBuf(p)
	return true
}
