package gateway

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcpengine/mcpengine/messages"
)

// AuditRecord is one line of the audit log, written for every tool call
// the gateway handled, whether it was forwarded, refused or failed.
type AuditRecord struct {
	Time     time.Time `json:"time"`
	Client   string    `json:"client"`
	Server   string    `json:"server"`
	Tool     string    `json:"tool"`
	Endpoint string    `json:"endpoint"` // "mcp" (aggregated) or "rpc" (routing protocol)
	// DurationMS is the time from the request's arrival to its answer.
	DurationMS float64 `json:"duration_ms"`
	// Outcome is ok, tool_error (the tool said isError), error (a JSON-RPC
	// error from the server), denied, rate_limited, time_limit, timeout,
	// unavailable or cancelled.
	Outcome string `json:"outcome"`
	Code    int64  `json:"code,omitempty"`
	Error   string `json:"error,omitempty"`
	// Arguments are recorded only when the audit configuration asks.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// auditLog writes AuditRecords as JSON lines; it is nil when off.
type auditLog struct {
	args bool

	mu     sync.Mutex
	w      io.Writer
	closer io.Closer // the file the gateway opened, if any
	failed bool      // a write failed: reported once
	log    func(msg string, args ...any)
}

func openAudit(a Audit, log func(string, ...any)) (*auditLog, error) {
	l := &auditLog{args: a.Arguments, log: log}
	switch {
	case a.Writer != nil:
		l.w = a.Writer
	case a.File == "-":
		l.w = os.Stderr
	case a.File != "":
		f, err := os.OpenFile(a.File, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("gateway: opening the audit log: %w", err)
		}
		l.w, l.closer = f, f
	default:
		return nil, nil
	}
	return l, nil
}

func (l *auditLog) toolCall(r *fwd, start time.Time, elapsed time.Duration, o outcome, werr *messages.WireError) {
	if l == nil {
		return
	}
	rec := AuditRecord{
		Time:       start.UTC(),
		Client:     r.who.name,
		Server:     r.srv.name,
		Tool:       r.name,
		Endpoint:   r.endpoint,
		DurationMS: float64(elapsed.Microseconds()) / 1000,
		Outcome:    string(o),
	}
	if werr != nil && werr != errNoAnswer {
		rec.Code, rec.Error = werr.Code, werr.Message
	}
	if l.args && len(r.args) > 0 {
		rec.Arguments = json.RawMessage(r.args)
	}
	line, err := messages.Marshal(&rec)
	if err != nil {
		return
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(line); err != nil && !l.failed {
		l.failed = true
		l.log("gateway: writing the audit log failed; later failures are not reported", "err", err)
	}
}

func (l *auditLog) close() error {
	if l == nil || l.closer == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closer.Close()
}
