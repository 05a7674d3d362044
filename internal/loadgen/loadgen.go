package loadgen

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// Histogram bounds: 1µs to 60s at 3 significant digits.
const (
	HistMin     = 1
	HistMax     = int64(60 * time.Second / time.Microsecond)
	HistSigFigs = 3
)

// NewHistogram returns an empty histogram with the bounds above, in
// microseconds.
func NewHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(HistMin, HistMax, HistSigFigs) }

// Config describes one run. Either Duration or Count (or both: whichever
// comes first) must be set.
type Config struct {
	// Engine configures the engine the run creates.
	Engine mcpengine.Config
	// Target returns session i's configuration (i from 0). Run names the
	// session "load-i" when Name is empty. Every session needs its own
	// connection, so a Server target starts one subprocess per session.
	Target func(i int) mcpengine.SessionConfig
	// Label describes the target in the Result.
	Label string

	// Sessions (default 1) and Concurrency, the concurrent calls per
	// session (default 1).
	Sessions    int
	Concurrency int
	// Duration stops starting calls after this long; Count after this many
	// calls in all. Calls under way when the duration ends complete and
	// count.
	Duration time.Duration
	Count    int64

	// Method is the JSON-RPC method (default tools/call). For tools/call,
	// Tool names the tool (default "echo") and Args are its arguments
	// (JSON object; none by default, except {"text":"hello"} for echo); for
	// other methods Args are the params (nil for none).
	Method string
	Tool   string
	Args   messages.RawMessage

	// Timeout is each call's timeout (0: the engine's RequestTimeout).
	Timeout time.Duration
	// ConnectTimeout bounds each session's connect (default 10s).
	ConnectTimeout time.Duration
	// CloseTimeout bounds closing the engine at the end (default 10s).
	CloseTimeout time.Duration
}

// DefaultArgs are the echo tool's default arguments.
var DefaultArgs = messages.RawMessage(`{"text":"hello"}`)

func (c *Config) withDefaults() error {
	if c.Target == nil {
		return errors.New("loadgen: no Target")
	}
	if c.Sessions <= 0 {
		c.Sessions = 1
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 1
	}
	if c.Duration <= 0 && c.Count <= 0 {
		return errors.New("loadgen: set a Duration or a Count")
	}
	if c.Method == "" {
		c.Method = messages.MethodToolsCall
	}
	if c.Method == messages.MethodToolsCall {
		if c.Tool == "" {
			c.Tool = "echo"
		}
		if len(c.Args) == 0 && c.Tool == "echo" {
			c.Args = DefaultArgs
		}
	} else if c.Tool != "" {
		return fmt.Errorf("loadgen: Tool %q given for method %s", c.Tool, c.Method)
	}
	if c.CloseTimeout <= 0 {
		c.CloseTimeout = 10 * time.Second
	}
	return nil
}

// params encodes the request parameters once for every call.
func (c *Config) params() (messages.RawMessage, error) {
	if c.Method != messages.MethodToolsCall {
		if len(c.Args) == 0 {
			return nil, nil
		}
		if !jsonValid(c.Args) {
			return nil, errors.New("loadgen: params are not valid JSON")
		}
		return c.Args, nil
	}
	p := &messages.CallToolParams{Name: c.Tool}
	if len(c.Args) > 0 {
		if !jsonValid(c.Args) {
			return nil, errors.New("loadgen: tool arguments are not valid JSON")
		}
		p.Arguments = c.Args
	}
	return messages.Marshal(p)
}

// Run connects the sessions, runs the calls, closes the engine and
// returns the measurements. It fails only if a session cannot connect or
// the configuration is invalid; failed calls are counted, not returned.
// If ctx ends, the run stops early with Result.Interrupted set.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.withDefaults(); err != nil {
		return nil, err
	}
	params, err := cfg.params()
	if err != nil {
		return nil, err
	}

	eng := mcpengine.New(cfg.Engine)
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), cfg.CloseTimeout)
		defer cancel()
		_ = eng.Close(cctx)
	}()

	sessions, cs, err := connectAll(ctx, eng, &cfg)
	if err != nil {
		return nil, err
	}

	res := runCalls(ctx, &cfg, sessions, params)
	res.Connect = cs
	return res, nil
}

// connectAll connects every session concurrently, timing each.
func connectAll(ctx context.Context, eng *mcpengine.Engine, cfg *Config) ([]*mcpengine.Session, ConnectStats, error) {
	sessions := make([]*mcpengine.Session, cfg.Sessions)
	times := make([]time.Duration, cfg.Sessions)
	errs := make([]error, cfg.Sessions)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range cfg.Sessions {
		sc := cfg.Target(i)
		if sc.Name == "" {
			sc.Name = fmt.Sprintf("load-%d", i)
		}
		wg.Add(1)
		// Owner: connectAll; exits when Connect returns (bounded by
		// ConnectTimeout, or at once after another session failed).
		go func() {
			defer wg.Done()
			t0 := time.Now()
			s, err := Connect(cctx, eng, sc, cfg.ConnectTimeout)
			var ce *ConnectError
			if cfg.Label != "" && errors.As(err, &ce) {
				ce.Target = cfg.Label
			}
			times[i] = time.Since(t0)
			sessions[i], errs[i] = s, err
			if err != nil {
				cancel() // no point waiting for the others
			}
		}()
	}
	wg.Wait()
	total := time.Since(start)
	// Report the root cause, not a session aborted because another failed.
	var first, aborted error
	for i, err := range errs {
		if err == nil {
			continue
		}
		err = fmt.Errorf("session %d of %d: %w", i+1, cfg.Sessions, err)
		if errors.Is(err, context.Canceled) && ctx.Err() == nil {
			aborted = cmp.Or(aborted, err)
		} else {
			first = cmp.Or(first, err)
		}
	}
	if err := cmp.Or(first, aborted); err != nil {
		return nil, ConnectStats{}, err
	}
	return sessions, connectStats(total, times), nil
}

// worker is one caller's private tally; merged after all have stopped.
type worker struct {
	hist     *hdrhistogram.Histogram
	counts   [numClasses]int64
	firstErr [numClasses]string
}

func (w *worker) record(class Class, lat time.Duration, err error) {
	us := lat.Microseconds()
	switch {
	case us < HistMin:
		us = HistMin
	case us > HistMax:
		us = HistMax
	}
	_ = w.hist.RecordValue(us) // cannot fail: clamped to the bounds
	w.counts[class]++
	if class != OK && w.firstErr[class] == "" {
		if err == nil {
			err = errors.New("tool result has isError: true")
		}
		w.firstErr[class] = err.Error()
	}
}

// toolErrorText describes an isError result by its text content.
func toolErrorText(raw messages.RawMessage) error {
	res, err := mcpengine.DecodeCallToolResult(raw, nil)
	if err != nil {
		return errors.New("tool result has isError: true")
	}
	var texts []string
	for _, b := range res.Content {
		if b.Type == "text" && b.Text != "" {
			texts = append(texts, b.Text)
		}
	}
	return fmt.Errorf("tool result has isError: true: %s", strings.Join(texts, "; "))
}

// toolStatus is the part of a tools/call result the run checks.
type toolStatus struct {
	IsError bool `json:"isError"`
}

func runCalls(ctx context.Context, cfg *Config, sessions []*mcpengine.Session, params messages.RawMessage) *Result {
	var opts []mcpengine.CallOption
	if cfg.Timeout > 0 {
		opts = append(opts, mcpengine.WithTimeout(cfg.Timeout))
	}
	isTool := cfg.Method == messages.MethodToolsCall

	// stop ends the starting of new calls; calls use ctx so that those
	// under way when the duration ends still complete.
	stop, cancelStop := context.WithCancel(ctx)
	defer cancelStop()
	var remaining atomic.Int64
	remaining.Store(cfg.Count)
	take := func() bool {
		if stop.Err() != nil {
			return false
		}
		return cfg.Count <= 0 || remaining.Add(-1) >= 0
	}

	workers := make([]*worker, 0, len(sessions)*cfg.Concurrency)
	var wg sync.WaitGroup
	start := time.Now()
	if cfg.Duration > 0 {
		t := time.AfterFunc(cfg.Duration, cancelStop)
		defer t.Stop()
	}
	for _, s := range sessions {
		for range cfg.Concurrency {
			w := &worker{hist: NewHistogram()}
			workers = append(workers, w)
			wg.Add(1)
			// Owner: runCalls; exits when take() says stop (duration,
			// count or ctx), after its current call returns.
			go func() {
				defer wg.Done()
				for take() {
					t0 := time.Now()
					raw, err := s.Call(ctx, cfg.Method, params, opts...)
					lat := time.Since(t0)
					if err != nil && ctx.Err() != nil {
						return // interrupted: not a measurement
					}
					class := Classify(err)
					if err == nil && isTool {
						var st toolStatus
						if derr := messages.Unmarshal(raw, &st); derr != nil {
							class, err = Other, fmt.Errorf("undecodable tools/call result: %w", derr)
						} else if st.IsError {
							class = ToolError
							if w.firstErr[ToolError] == "" {
								err = toolErrorText(raw)
							}
						}
					}
					w.record(class, lat, err)
				}
			}()
		}
	}
	wg.Wait()
	elapsed := time.Since(start)

	res := &Result{
		Target: cfg.Label, Method: cfg.Method, Tool: cfg.Tool, Args: cfg.Args,
		Sessions: len(sessions), Concurrency: cfg.Concurrency,
		Duration: elapsed, Seconds: elapsed.Seconds(),
		Interrupted: ctx.Err() != nil,
		Histogram:   NewHistogram(),
	}
	var counts [numClasses]int64
	first := map[string]string{}
	for _, w := range workers {
		res.Histogram.Merge(w.hist)
		for c := range numClasses {
			counts[c] += w.counts[c]
			if msg := w.firstErr[c]; msg != "" && first[c.String()] == "" {
				first[c.String()] = msg
			}
		}
	}
	res.OK = counts[OK]
	res.Errors = ErrorCounts{
		RPC: counts[RPCError], Tool: counts[ToolError], Timeout: counts[Timeout],
		Transport: counts[Transport], Other: counts[Other],
	}
	res.Failed = res.Errors.Total()
	res.Calls = res.OK + res.Failed
	if len(first) > 0 {
		res.FirstErrors = first
	}
	if elapsed > 0 {
		res.CallsPerSecond = float64(res.Calls) / elapsed.Seconds()
	}
	res.Latency = Summarize(res.Histogram)
	return res
}

func jsonValid(b []byte) bool { return json.Valid(b) }
