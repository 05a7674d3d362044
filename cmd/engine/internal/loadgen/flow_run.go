package loadgen

import (
	"fmt"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// runFlow runs one iteration of f: its steps in order on one session,
// each measured as a call of its own, the pauses between them, and the
// iteration as a whole. Like a call under way when the run stops, an
// iteration under way finishes (its pauses end early only when the
// caller's context does), so a count of iterations is exact.
func (r *runner) runFlow(sl *slot, s *mcpengine.Session, f *flow, td *TemplateData, warm bool, at time.Time, timer **time.Timer) {
	start := time.Now()
	vars := make(map[string]any, 4)
	td.Vars = vars
	fx := flowSample{flow: f.index}
	if r.open {
		fx.lag = max(0, start.Sub(at))
	}
	for i, st := range f.steps {
		stepAt := time.Time{}
		if i == 0 {
			stepAt = at // the arrival's schedule: the first step's latency runs from it
		}
		x, raw, ok := r.send(sl, s, st.req, td, stepAt)
		if !ok {
			return // interrupted: neither the step nor the iteration is a measurement
		}
		if x.class == OK {
			x.class, x.err = st.judge(raw, vars)
		}
		if !warm {
			sl.stats.record(&x)
		}
		last := i == len(f.steps)-1
		if x.class != OK {
			if fx.class == OK {
				fx.class, fx.err = x.class, fmt.Errorf("step %s: %w", st.req.Name, x.err)
			}
			if f.AbortOnFail {
				fx.aborted = !last
				break
			}
		}
		if !last && !r.think(st.think, timer) {
			return
		}
	}
	if warm {
		return
	}
	end := time.Now()
	fx.latency = end.Sub(start)
	if r.open {
		fx.latency = end.Sub(at)
	}
	sl.stats.recordFlow(&fx)
}

// think pauses between two steps; false if the caller's context ended.
func (r *runner) think(t Think, timer **time.Timer) bool {
	d := t.draw()
	if d <= 0 {
		return true
	}
	return r.wait(d, timer)
}

// judge classifies a step's answer: the tool result's status and schema
// as in the mix (with is_error able to expect an error), then the
// extractions, then the checks. The first that fails decides.
func (st *step) judge(raw messages.RawMessage, vars map[string]any) (Class, error) {
	q, c := st.req, st.check
	if q.Method == messages.MethodToolsCall {
		tr, err := decodeToolResult(raw, q.check != nil)
		if err != nil {
			return Other, fmt.Errorf("undecodable tools/call result: %w", err)
		}
		switch {
		case c.IsError != nil && tr.IsError != *c.IsError:
			if tr.IsError {
				return CheckFailed, fmt.Errorf("check is_error false: %w", toolErrorText(raw))
			}
			return CheckFailed, fmt.Errorf("check is_error true: the result has isError: false")
		case c.IsError == nil && tr.IsError:
			return ToolError, toolErrorText(raw)
		}
		if q.check != nil && !tr.IsError {
			if err := q.check.validate(tr.StructuredContent); err != nil {
				return SchemaError, err
			}
		}
	}
	if len(st.extract) > 0 {
		var doc any
		if err := messages.Unmarshal(raw, &doc); err != nil {
			return Other, fmt.Errorf("undecodable %s result: %w", q.Method, err)
		}
		for _, x := range st.extract {
			v, ok := x.take(doc)
			if !ok {
				return CheckFailed, fmt.Errorf("extract %s: %s matched nothing", x.Var, x.Path)
			}
			vars[x.Var] = v
		}
	}
	if c.needsText() {
		if err := c.judgeText(resultText(q.Method, raw)); err != nil {
			return CheckFailed, err
		}
	}
	if err := c.judgeVars(vars); err != nil {
		return CheckFailed, err
	}
	return OK, nil
}
