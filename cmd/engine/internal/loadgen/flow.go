package loadgen

import (
	"errors"
	"fmt"
	"slices"
)

// Flow is a scripted sequence of requests one virtual user makes in
// order, as an agent does: list the tools, call one with a value taken
// from the list, read what it pointed at. It is one item of the workload
// next to the weighted requests: picked by its Weight, it runs all its
// steps on one session (one arrival of the open model is one iteration).
type Flow struct {
	// Name labels the flow in the report (default "flow N").
	Name string `json:"name"`
	// Weight is the flow's share of the items picked (default 1).
	Weight float64 `json:"weight"`
	Steps  []Step  `json:"steps"`
	// Think is the pause after every step but the last, unless the step
	// sets its own. It is in no step's latency, and in the flow's.
	Think Think `json:"think"`
	// AbortOnFail ends the iteration at its first failed step; otherwise
	// the remaining steps still run (a step that needs a value an earlier
	// one failed to extract then fails on its template).
	AbortOnFail bool `json:"abort_on_fail,omitempty"`
}

// Step is one request of a flow: what to send (Request; its Name names
// the step, its Weight is unused), what to take from the answer, and
// what the answer must hold.
type Step struct {
	Request
	// Extract takes named values from the answer, for later steps'
	// templates ({{.Vars.name}}) and this step's checks.
	Extract []Extraction `json:"extract,omitempty"`
	Check   Check        `json:"check"`
	// Think, if set, replaces the flow's pause after this step.
	Think *Think `json:"think,omitempty"`
}

// flow is a compiled Flow.
type flow struct {
	Flow
	index int // in compiled.flows
	steps []*step
}

// step is a compiled Step; its request is one of compiled.reqs, so every
// step has histograms and counts of its own.
type step struct {
	req     *request
	extract []*extraction
	check   *stepCheck
	think   Think
	// varsUsed are the variables the step's templates name.
	varsUsed []string
}

// item is what a worker picks: one request, or one flow iteration.
type item struct {
	req  *request
	flow *flow
}

func (it item) weight() float64 {
	if it.flow != nil {
		return it.flow.Weight
	}
	return it.req.Weight
}

// compileFlow compiles f, appending its steps' requests to c.reqs.
func (c *compiled) compileFlow(i int, f Flow) (*flow, error) {
	if f.Name == "" {
		f.Name = fmt.Sprintf("flow %d", i+1)
	}
	if f.Weight < 0 {
		return nil, fmt.Errorf("flow %q: weight must not be negative", f.Name)
	}
	if f.Weight == 0 {
		f.Weight = 1
	}
	if len(f.Steps) == 0 {
		return nil, fmt.Errorf("flow %q has no steps", f.Name)
	}
	if err := f.Think.validate(); err != nil {
		return nil, fmt.Errorf("flow %q: think: %w", f.Name, err)
	}
	cf := &flow{Flow: f, index: len(c.flows)}
	names := map[string]int{}
	var extracted []string // by the steps so far
	for j, s := range f.Steps {
		st, err := compileStep(s, extracted)
		if err != nil {
			var te *TemplateError
			if errors.As(err, &te) {
				te.Flow, te.Step = f.Name, stepLabel(j, s.Request)
				return nil, te
			}
			return nil, &FlowError{Flow: f.Name, Step: stepLabel(j, s.Request), Err: err}
		}
		// Two steps of the same name would share a report row.
		base := st.req.Name
		if n := names[base]; n > 0 {
			st.req.Name = fmt.Sprintf("%s #%d", base, n+1)
		}
		names[base]++
		st.req.flow, st.req.index, st.req.stepLabel = cf, len(c.reqs), stepLabel(j, s.Request)
		if s.Think == nil {
			st.think = f.Think
		}
		c.reqs = append(c.reqs, st.req)
		cf.steps = append(cf.steps, st)
		for _, e := range st.extract {
			if !slices.Contains(extracted, e.Var) {
				extracted = append(extracted, e.Var)
			}
		}
	}
	return cf, nil
}

func compileStep(s Step, earlier []string) (*step, error) {
	s.Weight = 1
	if s.GenArgs {
		return nil, errors.New("gen_args: not in a flow step (its arguments come from the flow)")
	}
	q, err := compileRequest(s.Request)
	if err != nil {
		return nil, err
	}
	st := &step{req: q}
	q.needSchema = s.Check.Schema
	if s.Think != nil {
		if err := s.Think.validate(); err != nil {
			return nil, fmt.Errorf("think: %w", err)
		}
		st.think = *s.Think
	}
	st.varsUsed, q.usesVars = q.varRefs()
	for _, v := range st.varsUsed {
		if !slices.Contains(earlier, v) {
			return nil, fmt.Errorf("args: .Vars.%s is not extracted by an earlier step%s", v, extractedList(earlier))
		}
	}
	seen := map[string]bool{}
	for _, e := range s.Extract {
		x, err := compileExtraction(e)
		if err != nil {
			return nil, err
		}
		if seen[e.Var] {
			return nil, fmt.Errorf("extract: %s is extracted twice", e.Var)
		}
		seen[e.Var] = true
		st.extract = append(st.extract, x)
	}
	known := append(slices.Clone(earlier), extractionVars(s.Extract)...)
	if st.check, err = compileCheck(s.Check, q, known); err != nil {
		return nil, err
	}
	return st, nil
}

func extractedList(vars []string) string {
	if len(vars) == 0 {
		return " (none is)"
	}
	return fmt.Sprintf(" (extracted: %v)", vars)
}

func extractionVars(es []Extraction) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Var
	}
	return out
}

// stepLabel names a step in messages: its number, and its name if it
// has one.
func stepLabel(j int, r Request) string {
	if r.Name != "" {
		return fmt.Sprintf("%d (%s)", j+1, r.Name)
	}
	return fmt.Sprintf("%d (%s)", j+1, r.nameOrDefault())
}

// FlowError is a flow that cannot run as written: a mistake in the
// scenario, found before the run starts.
type FlowError struct {
	Flow, Step string // Step is empty for the flow as a whole
	Err        error
}

func (e *FlowError) Error() string {
	if e.Step == "" {
		return fmt.Sprintf("flow %q: %v", e.Flow, e.Err)
	}
	return fmt.Sprintf("flow %q step %s: %v", e.Flow, e.Step, e.Err)
}

func (e *FlowError) Unwrap() error { return e.Err }

// Validate compiles the workload as a run would, without running it:
// a flow step that names a variable no earlier step extracts, a bad
// JSONPath or regular expression, a template that does not parse.
func (w *Workload) Validate() error {
	_, err := compileWorkload(w)
	return err
}
