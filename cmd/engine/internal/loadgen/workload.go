package loadgen

import (
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"sort"
	"strings"
	"text/template"

	"github.com/mcpengine/mcpengine/messages"
)

// Request is one kind of request in a workload. Set Tool for tools/call,
// URI for resources/read, Prompt for prompts/get, or Method alone for
// anything else (ping, tools/list, …).
type Request struct {
	// Name labels the request in the report (default: the method, plus
	// the tool or prompt name: "tools/call echo").
	Name string `json:"name"`
	// Weight is the request's share of the mix (default 1).
	Weight float64 `json:"weight"`
	Method string  `json:"method"`
	Tool   string  `json:"tool,omitempty"`
	URI    string  `json:"uri,omitempty"`
	Prompt string  `json:"prompt,omitempty"`
	// Args are the tool's or prompt's arguments, or the params of any
	// other method: JSON text (a Go template if it holds "{{"; it must
	// render to valid JSON), or a decoded value (from YAML) whose strings
	// may be templates and stay strings.
	Args any `json:"args,omitempty"`
	// GenArgs generates a tool's arguments on every call from its
	// inputSchema (tools/call only; Args must be empty).
	GenArgs bool `json:"gen_args,omitempty"`
}

// Workload is the mix a run sends: requests and flows, one picked at
// random by weight for every call (a flow: for every iteration).
type Workload struct {
	Requests []Request
	Flows    []Flow
	// Rows feed {{.Row}} in templates (LoadData); DataFile names them.
	Rows     []map[string]any
	DataFile string
}

// SingleRequest is the workload of one request: tools/call tool with args
// (JSON text), or method with args as its params.
func SingleRequest(method, tool string, args []byte) (*Workload, error) {
	if method == "" {
		method = messages.MethodToolsCall
	}
	r := Request{Method: method, Weight: 1}
	if len(args) > 0 {
		r.Args = string(args)
	}
	switch method {
	case messages.MethodToolsCall:
		r.Tool = tool
		if r.Tool == "" {
			r.Tool = "echo"
		}
		if r.Args == nil && r.Tool == "echo" {
			r.Args = string(DefaultArgs)
		}
	default:
		if tool != "" {
			return nil, fmt.Errorf("loadgen: Tool %q given for method %s", tool, method)
		}
	}
	return &Workload{Requests: []Request{r}}, nil
}

// DefaultArgs are the echo tool's default arguments.
var DefaultArgs = messages.RawMessage(`{"text":"hello"}`)

// request is a compiled Request.
type request struct {
	Request
	index int
	// static are the params when nothing varies per call (nil params are
	// static too).
	static   messages.RawMessage
	isStatic bool
	// Per call: one of these renders the variable part.
	text *template.Template // JSON text template (args or params)
	tree *argNode           // structured args with templated strings
	uri  *template.Template // resources/read URI
	gen  *argGen            // arguments generated from the inputSchema
	// check validates a tools/call result's structuredContent against the
	// tool's outputSchema (nil: no schema, or validation off).
	check *outputCheck
	// flow is the flow the request is a step of (nil in the mix), and
	// stepLabel names the step in messages ("2 (say)").
	flow      *flow
	stepLabel string
	// usesVars: the step's templates use values extracted by earlier
	// steps, so they are rendered only during the run.
	usesVars bool
	// needSchema: a step's check.schema asks for the outputSchema even
	// when validation is off, and fails preflight without one.
	needSchema bool
}

// label names the request in messages: a step by its flow.
func (r *request) label() string {
	if r.flow != nil {
		return fmt.Sprintf("flow %q step %q", r.flow.Name, r.Name)
	}
	return "request " + r.Name
}

// compiled is a workload ready to run.
type compiled struct {
	// reqs are every kind of call measured apart: the mix's requests,
	// then every flow's steps (request.index is the position here).
	reqs  []*request
	mix   int // reqs[:mix] are the mix's
	flows []*flow
	items []item    // what pick chooses from: the mix's requests and the flows
	cum   []float64 // cumulative weights of items
	total float64
	rows  []map[string]any
}

func compileWorkload(w *Workload) (*compiled, error) {
	if w == nil || len(w.Requests)+len(w.Flows) == 0 {
		return nil, errors.New("loadgen: the workload has no requests")
	}
	c := &compiled{rows: w.Rows}
	names := map[string]int{}
	for i, r := range w.Requests {
		req, err := compileRequest(r)
		var te *TemplateError
		switch {
		case errors.As(err, &te):
			te.Request = fmt.Sprintf("%d (%s)", i+1, describeRequest(r))
			return nil, te
		case err != nil:
			return nil, fmt.Errorf("request %d (%s): %w", i+1, describeRequest(r), err)
		}
		req.index = i
		// Two requests of the same name would share a report row; number
		// the second and later ones.
		base := req.Name
		if n := names[base]; n > 0 {
			req.Name = fmt.Sprintf("%s #%d", base, n+1)
		}
		names[base]++
		c.reqs = append(c.reqs, req)
		c.addItem(item{req: req})
	}
	c.mix = len(c.reqs)
	flowNames := map[string]bool{}
	for i, f := range w.Flows {
		cf, err := c.compileFlow(i, f)
		if err != nil {
			return nil, err
		}
		if flowNames[cf.Name] {
			return nil, &FlowError{Flow: cf.Name, Err: errors.New("two flows have this name")}
		}
		flowNames[cf.Name] = true
		c.flows = append(c.flows, cf)
		c.addItem(item{flow: cf})
	}
	if c.total <= 0 {
		return nil, errors.New("loadgen: every request and flow has weight 0")
	}
	return c, nil
}

func describeRequest(r Request) string {
	if n := r.nameOrDefault(); n != "" {
		return n
	}
	return "?"
}

func (r Request) nameOrDefault() string {
	if r.Name != "" {
		return r.Name
	}
	switch {
	case r.Tool != "":
		return r.Method + " " + r.Tool
	case r.Prompt != "":
		return r.Method + " " + r.Prompt
	}
	return r.Method
}

func compileRequest(r Request) (*request, error) {
	if r.Weight < 0 {
		return nil, errors.New("weight must not be negative")
	}
	if r.Weight == 0 {
		r.Weight = 1
	}
	switch {
	case r.Tool != "":
		if r.Method == "" {
			r.Method = messages.MethodToolsCall
		}
	case r.URI != "":
		if r.Method == "" {
			r.Method = messages.MethodResourcesRead
		}
	case r.Prompt != "":
		if r.Method == "" {
			r.Method = messages.MethodPromptsGet
		}
	}
	if r.Method == "" {
		return nil, errors.New("no method, tool, uri or prompt")
	}
	if r.Method == messages.MethodToolsCall && r.Tool == "" {
		return nil, errors.New("tools/call needs a tool name")
	}
	if r.Method == messages.MethodResourcesRead && r.URI == "" && r.Args == nil {
		return nil, errors.New("resources/read needs a uri")
	}
	if r.Method == messages.MethodPromptsGet && r.Prompt == "" {
		return nil, errors.New("prompts/get needs a prompt name")
	}
	if r.GenArgs && (r.Method != messages.MethodToolsCall || r.Args != nil) {
		return nil, errors.New("gen_args applies to tools/call without args")
	}
	r.Name = r.nameOrDefault()
	req := &request{Request: r}

	// The variable part: args as JSON text or as a tree.
	var staticArgs messages.RawMessage
	variable := false
	switch a := r.Args.(type) {
	case nil:
	case json.RawMessage:
		if !json.Valid(a) {
			return nil, errors.New("args are not valid JSON")
		}
		staticArgs = a
	case string:
		if isTemplate(a) {
			t, err := parseTemplate(r.Name, a)
			if err != nil {
				return nil, err
			}
			req.text, variable = t, true
		} else {
			if !json.Valid([]byte(a)) {
				return nil, fmt.Errorf("args are not valid JSON: %s", a)
			}
			staticArgs = messages.RawMessage(a)
		}
	default:
		tree, templated, err := compileArgTree(r.Name, a)
		if err != nil {
			return nil, err
		}
		if templated {
			req.tree, variable = tree, true
		} else {
			b, err := tree.appendJSON(nil, nil)
			if err != nil {
				return nil, err
			}
			staticArgs = b
		}
	}
	if r.URI != "" && isTemplate(r.URI) {
		t, err := parseTemplate(r.Name+" uri", r.URI)
		if err != nil {
			return nil, err
		}
		req.uri, variable = t, true
	}
	if r.GenArgs {
		variable = true // the generator is attached once the tools are listed
	}
	if !variable {
		p, err := req.params(staticArgs, r.URI)
		if err != nil {
			return nil, err
		}
		req.static, req.isStatic = p, true
	}
	return req, nil
}

// params wraps a request's arguments into its method's params.
func (r *request) params(args messages.RawMessage, uri string) (messages.RawMessage, error) {
	switch r.Method {
	case messages.MethodToolsCall:
		if len(args) > 0 && !isJSONObject(args) {
			return nil, fmt.Errorf("tool arguments must be a JSON object, got %s", clip(args))
		}
		buf := append([]byte(`{"name":`), mustJSON(r.Tool)...)
		if len(args) > 0 {
			buf = append(append(buf, `,"arguments":`...), args...)
		}
		return append(buf, '}'), nil
	case messages.MethodPromptsGet:
		buf := append([]byte(`{"name":`), mustJSON(r.Prompt)...)
		if len(args) > 0 {
			strs, err := promptArgs(args)
			if err != nil {
				return nil, err
			}
			buf = append(append(buf, `,"arguments":`...), strs...)
		}
		return append(buf, '}'), nil
	case messages.MethodResourcesRead:
		if uri == "" {
			return args, nil
		}
		return append(append([]byte(`{"uri":`), mustJSON(uri)...), '}'), nil
	}
	return args, nil
}

// promptArgs makes every argument a string, as prompts/get requires.
func promptArgs(args messages.RawMessage) (messages.RawMessage, error) {
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil || m == nil {
		return nil, fmt.Errorf("prompt arguments must be a JSON object, got %s", clip(args))
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
			continue
		}
		b, _ := json.Marshal(v)
		out[k] = string(b)
	}
	return json.Marshal(out)
}

// build returns the params of one call.
func (r *request) build(td *TemplateData) (messages.RawMessage, error) {
	if r.isStatic {
		return r.static, nil
	}
	var args messages.RawMessage
	switch {
	case r.text != nil:
		b, err := render(r.text, td)
		if err != nil {
			return nil, &TemplateError{Request: r.Name, Err: err}
		}
		if !json.Valid(b) {
			return nil, fmt.Errorf("args template rendered invalid JSON: %s", clip(b))
		}
		args = b
	case r.tree != nil:
		b, err := r.tree.appendJSON(nil, td)
		if err != nil {
			return nil, &TemplateError{Request: r.Name, Err: err}
		}
		args = b
	case r.gen != nil:
		args = r.gen.generate()
	}
	uri := r.URI
	if r.uri != nil {
		b, err := render(r.uri, td)
		if err != nil {
			return nil, fmt.Errorf("uri template: %w", err)
		}
		uri = string(b)
	}
	return r.params(args, uri)
}

func (c *compiled) addItem(it item) {
	c.items = append(c.items, it)
	c.total += it.weight()
	c.cum = append(c.cum, c.total)
}

// pick chooses the next request or flow by weight.
func (c *compiled) pick() item {
	if len(c.items) == 1 {
		return c.items[0]
	}
	x := mrand.Float64() * c.total
	i := sort.SearchFloat64s(c.cum, x)
	if i >= len(c.items) {
		i = len(c.items) - 1
	}
	// SearchFloat64s finds the first cum >= x; a zero-width item
	// (weight rounding) is never chosen because its cum equals the
	// previous one, which is found first.
	return c.items[i]
}

// row is the data row for request n.
func (c *compiled) row(n int64) map[string]any {
	if len(c.rows) == 0 {
		return nil
	}
	return c.rows[n%int64(len(c.rows))]
}

// tools lists the tools the workload calls.
func (c *compiled) tools() []string {
	var out []string
	for _, r := range c.reqs {
		if r.Method == messages.MethodToolsCall && !slices.Contains(out, r.Tool) {
			out = append(out, r.Tool)
		}
	}
	return out
}

func isJSONObject(b []byte) bool {
	s := strings.TrimLeft(string(b), " \t\r\n")
	return strings.HasPrefix(s, "{")
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func clip(b []byte) string {
	const n = 120
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
