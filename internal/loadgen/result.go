package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// Class is the outcome of one call.
type Class int

// The outcome classes. Everything but OK is a failure; a tool result with
// isError true is ToolError, never OK.
const (
	OK        Class = iota
	RPCError        // the server answered with a JSON-RPC error
	ToolError       // tools/call result with isError: true
	Timeout         // no answer in time
	Transport       // connection lost, session closed or not ready
	Other           // rejected locally (in-flight cap, queue full), undecodable result
	numClasses
)

var classNames = [numClasses]string{"ok", "rpc", "tool", "timeout", "transport", "other"}

func (c Class) String() string {
	if c >= 0 && c < numClasses {
		return classNames[c]
	}
	return "unknown"
}

// Classify sorts a call's error into a class (OK for nil).
func Classify(err error) Class {
	var rpc *mcpengine.RPCError
	switch {
	case err == nil:
		return OK
	case errors.As(err, &rpc):
		return RPCError
	case errors.Is(err, mcpengine.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return Timeout
	case errors.Is(err, mcpengine.ErrTooManyInFlight), errors.Is(err, mcpengine.ErrQueueFull),
		errors.Is(err, mcpengine.ErrCapabilityNotSupported):
		return Other
	case errors.Is(err, mcpengine.ErrConnectionLost), errors.Is(err, mcpengine.ErrSessionClosed),
		errors.Is(err, mcpengine.ErrNotReady):
		return Transport
	}
	var d interface{ Timeout() bool }
	if errors.As(err, &d) && d.Timeout() {
		return Timeout
	}
	return Other
}

// ErrorCounts counts failed calls by class.
type ErrorCounts struct {
	RPC       int64 `json:"rpc"`       // JSON-RPC error answers
	Tool      int64 `json:"tool"`      // isError results
	Timeout   int64 `json:"timeout"`   // no answer in time
	Transport int64 `json:"transport"` // connection lost / session closed
	Other     int64 `json:"other"`     // local rejections, bad results
}

// Total is the number of failed calls.
func (e ErrorCounts) Total() int64 { return e.RPC + e.Tool + e.Timeout + e.Transport + e.Other }

// Latency summarises a latency distribution. It is encoded in JSON as
// whole microseconds.
type Latency struct {
	Min, Mean, P50, P90, P95, P99, P999, Max time.Duration
}

type latencyJSON struct {
	Min  int64 `json:"min"`
	Mean int64 `json:"mean"`
	P50  int64 `json:"p50"`
	P90  int64 `json:"p90"`
	P95  int64 `json:"p95"`
	P99  int64 `json:"p99"`
	P999 int64 `json:"p99_9"`
	Max  int64 `json:"max"`
}

// MarshalJSON encodes l in microseconds.
func (l Latency) MarshalJSON() ([]byte, error) {
	us := func(d time.Duration) int64 { return d.Microseconds() }
	return json.Marshal(latencyJSON{us(l.Min), us(l.Mean), us(l.P50), us(l.P90), us(l.P95), us(l.P99), us(l.P999), us(l.Max)})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (l *Latency) UnmarshalJSON(b []byte) error {
	var j latencyJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	d := func(us int64) time.Duration { return time.Duration(us) * time.Microsecond }
	*l = Latency{d(j.Min), d(j.Mean), d(j.P50), d(j.P90), d(j.P95), d(j.P99), d(j.P999), d(j.Max)}
	return nil
}

// Summarize reads a latency summary from a histogram of microseconds.
func Summarize(h *hdrhistogram.Histogram) Latency {
	if h == nil || h.TotalCount() == 0 {
		return Latency{}
	}
	us := func(v int64) time.Duration { return time.Duration(v) * time.Microsecond }
	return Latency{
		Min:  us(h.Min()),
		Mean: time.Duration(h.Mean() * float64(time.Microsecond)),
		P50:  us(h.ValueAtQuantile(50)),
		P90:  us(h.ValueAtQuantile(90)),
		P95:  us(h.ValueAtQuantile(95)),
		P99:  us(h.ValueAtQuantile(99)),
		P999: us(h.ValueAtQuantile(99.9)),
		Max:  us(h.Max()),
	}
}

// ConnectStats describes how long the sessions took to become ready,
// measured apart from the calls. JSON: microseconds.
type ConnectStats struct {
	// Total is the wall time until every session was ready (they connect
	// concurrently).
	Total time.Duration
	// Min, Mean and Max are over the sessions' own connect times.
	Min, Mean, Max time.Duration
}

type connectJSON struct {
	Total int64 `json:"total"`
	Min   int64 `json:"min"`
	Mean  int64 `json:"mean"`
	Max   int64 `json:"max"`
}

// MarshalJSON encodes c in microseconds.
func (c ConnectStats) MarshalJSON() ([]byte, error) {
	return json.Marshal(connectJSON{c.Total.Microseconds(), c.Min.Microseconds(), c.Mean.Microseconds(), c.Max.Microseconds()})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (c *ConnectStats) UnmarshalJSON(b []byte) error {
	var j connectJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	d := func(us int64) time.Duration { return time.Duration(us) * time.Microsecond }
	*c = ConnectStats{d(j.Total), d(j.Min), d(j.Mean), d(j.Max)}
	return nil
}

func connectStats(total time.Duration, each []time.Duration) ConnectStats {
	cs := ConnectStats{Total: total}
	if len(each) == 0 {
		return cs
	}
	cs.Min, cs.Max = each[0], each[0]
	var sum time.Duration
	for _, d := range each {
		cs.Min, cs.Max = min(cs.Min, d), max(cs.Max, d)
		sum += d
	}
	cs.Mean = sum / time.Duration(len(each))
	return cs
}

// Result is the outcome of a run. Its JSON field names are stable.
type Result struct {
	// Target is Config.Label.
	Target string `json:"target,omitempty"`
	// Method is the JSON-RPC method called; Tool the tool for tools/call;
	// Args its arguments (or the method's params).
	Method string              `json:"method"`
	Tool   string              `json:"tool,omitempty"`
	Args   messages.RawMessage `json:"args,omitempty"` // tool arguments or params

	Sessions    int `json:"sessions"`
	Concurrency int `json:"concurrency"` // concurrent calls per session

	// Calls counts every completed call: OK plus Errors.Total().
	Calls  int64       `json:"calls"`
	OK     int64       `json:"ok"`
	Failed int64       `json:"failed"`
	Errors ErrorCounts `json:"errors"`
	// FirstErrors holds one example error message per failure class that
	// occurred (keys as in Errors), from the first worker that saw one.
	FirstErrors map[string]string `json:"first_errors,omitempty"`

	// Duration is from the first call sent to the last one answered.
	Duration       time.Duration `json:"-"`
	Seconds        float64       `json:"duration_s"`
	CallsPerSecond float64       `json:"calls_per_s"`

	// Latency is over every completed call, failures included.
	Latency Latency      `json:"latency_us"`
	Connect ConnectStats `json:"connect_us"`

	// Interrupted is set when the caller's context ended the run early;
	// calls cut short by it are not counted.
	Interrupted bool `json:"interrupted,omitempty"`

	// Histogram is the merged latency histogram in microseconds (1µs to
	// 60s, 3 significant digits); values above 60s are recorded as 60s.
	Histogram *hdrhistogram.Histogram `json:"-"`
}
