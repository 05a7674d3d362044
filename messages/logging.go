package messages

// LoggingLevel is a syslog (RFC 5424) severity.
type LoggingLevel string

// Levels, least severe first.
const (
	LoggingLevelDebug     LoggingLevel = "debug"
	LoggingLevelInfo      LoggingLevel = "info"
	LoggingLevelNotice    LoggingLevel = "notice"
	LoggingLevelWarning   LoggingLevel = "warning"
	LoggingLevelError     LoggingLevel = "error"
	LoggingLevelCritical  LoggingLevel = "critical"
	LoggingLevelAlert     LoggingLevel = "alert"
	LoggingLevelEmergency LoggingLevel = "emergency"
)

// Valid reports whether l is one of the eight levels.
func (l LoggingLevel) Valid() bool {
	switch l {
	case LoggingLevelDebug, LoggingLevelInfo, LoggingLevelNotice, LoggingLevelWarning,
		LoggingLevelError, LoggingLevelCritical, LoggingLevelAlert, LoggingLevelEmergency:
		return true
	}
	return false
}

// SetLevelParams are the params of logging/setLevel.
type SetLevelParams struct {
	Level LoggingLevel   `json:"level"`
	Meta  map[string]any `json:"_meta,omitempty"`
}

func (*SetLevelParams) fromClient() {}

// LoggingMessageParams are the params of notifications/message. Data is
// any JSON value and stays raw.
type LoggingMessageParams struct {
	Level  LoggingLevel   `json:"level"`
	Logger string         `json:"logger,omitempty"`
	Data   RawMessage     `json:"data"`
	Meta   map[string]any `json:"_meta,omitempty"`
}

func (*LoggingMessageParams) fromServer() {}
