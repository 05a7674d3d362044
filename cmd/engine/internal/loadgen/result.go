package loadgen

import (
	"encoding/json"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// SchemaVersion names the JSON layout of Result. Fields are only ever
// added under the same version.
const SchemaVersion = "mcpengine.load/v1"

// Result is the outcome of a run. Its JSON field names are stable and
// documented in the README; durations are in microseconds (fields ending
// in _us) or seconds (_s).
type Result struct {
	Schema string `json:"schema"`
	// Target is Config.Label.
	Target string `json:"target,omitempty"`
	// Command is the command line that ran the load (secrets redacted)
	// and Version the engine's version, when the caller records them.
	Command string `json:"command,omitempty"`
	Version string `json:"version,omitempty"`
	// Model is "closed" or "open".
	Model string `json:"model"`
	// Method, Tool and Args describe the request when the workload has
	// just one (Args are the tool's arguments or the method's params).
	Method string          `json:"method,omitempty"`
	Tool   string          `json:"tool,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`
	// Workload lists the request kinds and their weights.
	Workload []RequestInfo `json:"workload"`

	Sessions    int `json:"sessions"`
	Concurrency int `json:"concurrency"` // calls in flight per session (open model: at most)
	// Rate is the open model's constant total arrival rate; Stages the
	// ramp (targets are rates in the open model, sessions in the closed
	// one) from StartLevel.
	Rate       float64 `json:"rate,omitempty"`
	Stages     []Stage `json:"stages,omitempty"`
	StartLevel float64 `json:"start_level,omitempty"`
	Churn      int64   `json:"churn,omitempty"`
	Warmup     Warmup  `json:"warmup"`

	Started time.Time `json:"started"`
	// Duration is the measured time: from the end of the warm-up to the
	// last answer.
	Duration       time.Duration `json:"-"`
	Seconds        float64       `json:"duration_s"`
	CallsPerSecond float64       `json:"calls_per_s"`

	// Calls counts every measured call: OK plus Failed.
	Calls     int64       `json:"calls"`
	OK        int64       `json:"ok"`
	Failed    int64       `json:"failed"`
	ErrorRate float64     `json:"error_rate"` // Failed / Calls (0 to 1)
	Errors    ErrorCounts `json:"errors"`
	// RPCCodes counts JSON-RPC error answers by code ("-32602": 3).
	RPCCodes map[string]int64 `json:"rpc_codes,omitempty"`
	// FirstErrors holds one example message per failure class that
	// occurred (keys as in Errors).
	FirstErrors map[string]string `json:"first_errors,omitempty"`

	// Latency is over every timed call, failures included. In the open
	// model it runs from the call's scheduled send time (corrected for
	// coordinated omission); in the closed model it equals Service.
	Latency Latency `json:"latency_us"`
	// Service runs from the moment the call was actually sent.
	Service Latency `json:"service_us"`
	// Percentiles is the latency-by-percentile curve (HdrHistogram style).
	Percentiles []Percentile `json:"percentiles"`
	// Histogram bins the latency logarithmically (for charts).
	Histogram []Bucket `json:"histogram"`
	// HDR holds the full latency histograms, base64 compressed
	// HdrHistogram V2 (readable by every HdrHistogram library).
	HDR HDRDump `json:"hdr"`

	// Schedule is the open model's account of sending on time.
	Schedule *Schedule `json:"schedule,omitempty"`

	// Connect and Handshake time each session's connects apart from the
	// calls: the transport coming up (process start) and the handshake
	// (initialize, or server/discover in 2026-07-28).
	Connect   ConnectStats `json:"connect_us"`
	Handshake Latency      `json:"handshake_us"`
	// Supervision is the engine's recovery during the run: sessions
	// reconnected after their server or connection was lost, and the
	// time they spent not ready.
	Supervision SupervisionStats `json:"supervision"`
	// Protocols are the protocol versions the connects negotiated: one
	// entry unless the sessions (or reconnects) settled on different ones.
	Protocols []ProtocolUse `json:"protocols,omitempty"`

	// Methods breaks the figures down by request kind, PerSession by
	// session.
	Methods    []MethodResult  `json:"methods"`
	PerSession []SessionResult `json:"per_session"`
	// Flows are the scripted flows' iterations, each with its steps'
	// figures (the steps' calls count in Calls too; the iterations do
	// not).
	Flows []FlowResult `json:"flows,omitempty"`

	Timeline  *Timeline   `json:"timeline"`
	Processes *ProcStats  `json:"processes,omitempty"`
	Client    ClientStats `json:"client"`

	// Thresholds are the checks asked for and their outcome (filled in by
	// the command line).
	Thresholds []ThresholdResult `json:"thresholds,omitempty"`

	// Members are a distributed run's members, each with its share and
	// figures (empty on one host). Partial is set when a member was lost
	// during the run: its calls up to its last report count, the rest of
	// its share was never made.
	Members []MemberResult `json:"members,omitempty"`
	Partial bool           `json:"partial,omitempty"`

	// Interrupted is set when the caller's context ended the run early;
	// calls cut short by it are not counted.
	Interrupted bool `json:"interrupted,omitempty"`
	// CutOff counts the calls still under way Config.GracefulStop after
	// the run ended, cut off then and not measured (k6's interrupted
	// iterations).
	CutOff int64 `json:"cut_off,omitempty"`
	// Aborted says which abort threshold stopped the run early.
	Aborted string `json:"aborted,omitempty"`
	// Warnings are things the reader should know (a tool the server does
	// not list, sessions that failed to reconnect, a busy client).
	Warnings []string `json:"warnings,omitempty"`

	// LatencyHist and ServiceHist are the merged histograms in
	// microseconds (1µs to 60s, 3 significant digits; longer values are
	// recorded as 60s).
	LatencyHist *hdrhistogram.Histogram `json:"-"`
	ServiceHist *hdrhistogram.Histogram `json:"-"`
}

// RequestInfo describes one request kind of the workload.
type RequestInfo struct {
	Name   string  `json:"name"`
	Method string  `json:"method"`
	Tool   string  `json:"tool,omitempty"`
	Weight float64 `json:"weight"`
}

// Warmup is what ran before the measurement.
type Warmup struct {
	Seconds float64 `json:"duration_s"`
	Calls   int64   `json:"calls"`
}

// HDRDump holds encoded histograms.
type HDRDump struct {
	Latency string `json:"latency,omitempty"`
	Service string `json:"service,omitempty"`
	// SendLag, Connect (the connects' transport phase) and Handshake are
	// kept only with Config.MethodHistograms: a coordinator merges them
	// across members.
	SendLag   string `json:"send_lag,omitempty"`
	Connect   string `json:"connect,omitempty"`
	Handshake string `json:"handshake,omitempty"`
}

// Schedule is the open model's account: how many calls were scheduled in
// the measured time, how many were sent, how many of those went out more
// than LateAfter behind schedule (every session's slots were busy), and
// how many were never sent before the run ended.
type Schedule struct {
	Intended int64 `json:"intended"`
	Sent     int64 `json:"sent"`
	Late     int64 `json:"late"`
	Unsent   int64 `json:"unsent"`
	// Dropped are the calls of Unsent that were due while every session's
	// slots were busy and could not start before the duration ended (k6's
	// dropped_iterations): the generator was behind the schedule.
	Dropped     int64   `json:"dropped"`
	LateAfterUS int64   `json:"late_after_us"`
	SentPerSec  float64 `json:"sent_per_s"`
	// SendLag is how long after its scheduled time each call was sent.
	SendLag Latency `json:"send_lag_us"`
}

// ConnectStats time the sessions' connects. JSON: microseconds.
type ConnectStats struct {
	// Total is the wall time until every session was ready at the start
	// (they connect concurrently).
	Total time.Duration
	// Count is the connects made (more than the sessions in churn mode or
	// with staged sessions), Failed those that did not become ready.
	Count, Failed int64
	// Min, Mean, P50, P99, Max are over the connects' transport phase
	// (Phases.Dial).
	Min, Mean, P50, P99, Max time.Duration
}

type connectJSON struct {
	Total  int64 `json:"total"`
	Count  int64 `json:"count"`
	Failed int64 `json:"failed"`
	Min    int64 `json:"min"`
	Mean   int64 `json:"mean"`
	P50    int64 `json:"p50"`
	P99    int64 `json:"p99"`
	Max    int64 `json:"max"`
}

// MarshalJSON encodes c in microseconds.
func (c ConnectStats) MarshalJSON() ([]byte, error) {
	us := func(d time.Duration) int64 { return d.Microseconds() }
	return json.Marshal(connectJSON{us(c.Total), c.Count, c.Failed, us(c.Min), us(c.Mean), us(c.P50), us(c.P99), us(c.Max)})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (c *ConnectStats) UnmarshalJSON(b []byte) error {
	var j connectJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	d := fromMicros
	*c = ConnectStats{Total: d(j.Total), Count: j.Count, Failed: j.Failed,
		Min: d(j.Min), Mean: d(j.Mean), P50: d(j.P50), P99: d(j.P99), Max: d(j.Max)}
	return nil
}

// MethodResult is one request kind's figures.
type MethodResult struct {
	Name string `json:"name"`
	// Flow is the flow a step belongs to (empty in the mix).
	Flow           string            `json:"flow,omitempty"`
	Method         string            `json:"method"`
	Tool           string            `json:"tool,omitempty"`
	Calls          int64             `json:"calls"`
	OK             int64             `json:"ok"`
	Failed         int64             `json:"failed"`
	ErrorRate      float64           `json:"error_rate"`
	CallsPerSecond float64           `json:"calls_per_s"`
	Errors         ErrorCounts       `json:"errors"`
	RPCCodes       map[string]int64  `json:"rpc_codes,omitempty"`
	FirstErrors    map[string]string `json:"first_errors,omitempty"`
	Latency        Latency           `json:"latency_us"`
	Service        Latency           `json:"service_us"`
	// HDR holds the kind's histograms with Config.MethodHistograms.
	HDR *HDRDump `json:"hdr,omitempty"`
}

// SessionResult is one session's figures (a session index: in churn mode
// it stands for all the connections made in turn).
type SessionResult struct {
	Session  int   `json:"session"`
	Calls    int64 `json:"calls"`
	Failed   int64 `json:"failed"`
	Connects int64 `json:"connects"`
	// Reconnects, Restarts and NotReadyS are the engine's recovery of
	// the session (SupervisionStats): connects counts only the run's own.
	Reconnects int64   `json:"reconnects"`
	Restarts   uint64  `json:"restarts"`
	NotReadyS  float64 `json:"not_ready_s"`
	P50US      int64   `json:"p50_us"`
	P99US      int64   `json:"p99_us"`
	MaxUS      int64   `json:"max_us"`
	Share      float64 `json:"share"` // of all calls (0 to 1)
}

// ThresholdResult is one --threshold and its outcome.
type ThresholdResult struct {
	Expr   string  `json:"expr"`
	Metric string  `json:"metric"`
	Actual float64 `json:"actual"`
	Unit   string  `json:"unit"`
	Pass   bool    `json:"pass"`
	// Note says why a check failed without a value (a metric the run did
	// not measure).
	Note string `json:"note,omitempty"`
}

// Progress is the run so far, passed to Config.Progress once per
// interval.
type Progress struct {
	// Elapsed is the time since the run started (warm-up included);
	// Planned the profile's length (0 when only a count ends the run).
	Elapsed, Planned time.Duration
	Warmup           bool
	// Calls and Errors are measured totals; Count the planned total (0
	// when a duration ends the run).
	Calls, Errors, Count int64
	// ErrorClasses splits Errors by class.
	ErrorClasses ErrorCounts
	// Last is the interval just ended.
	Last Point
	// Latency and Service are the interval's histograms (microseconds;
	// Latency is nil in the closed model, where it equals Service). They
	// are reused: valid only during the call, copy or encode them there.
	Latency, Service *hdrhistogram.Histogram
	// Connects are the run's connects so far (with
	// Config.MethodHistograms only).
	Connects ConnectsSoFar
	// Supervision is the sessions' recovery so far; NotReadyNow the
	// sessions not ready at the interval's end.
	Supervision SupervisionStats
	// Lost are a distributed run's members that went away while it ran,
	// with the calls their share made due since (open model).
	Lost []LostMember
	// Behind is, in the open model, how many calls are due and not yet
	// started: every session's slots are busy (the server is slower than
	// the rate asked for, or -c too low). Those still behind when the
	// duration ends are dropped.
	Behind int64
}

func jsonMarshal(v any) ([]byte, error)   { return json.Marshal(v) }
func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// LostMember is a distributed run's member that went away during the run.
type LostMember struct {
	Address, Why string
	// Owed is the calls its share made due that it did not make (open
	// model and counts; 0 when the share sets no number).
	Owed int64
}

// ProtocolUse is one protocol version the sessions negotiated, its era
// ("modern": 2026-07-28 on; "legacy": the initialize handshake) and how
// many connects settled on it.
type ProtocolUse struct {
	Version  string `json:"version"`
	Era      string `json:"era"`
	Connects int64  `json:"connects"`
}
