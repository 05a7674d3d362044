package loadgen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpengine/mcpengine/messages"
)

// scenarioFile is the YAML scenario format:
//
//	data: users.csv               # optional, relative to the scenario file
//	requests:
//	  - call: echo                # tools/call
//	    args: {text: "hi {{.Row.name}}"}
//	    weight: 70
//	  - call: add
//	    args: '{"a": {{randInt 1 9}}, "b": 2}'   # JSON text template
//	  - read: "demo://resource/{{randInt 1 100}}"
//	  - prompt: greet
//	    args: {name: Ada}
//	  - list: tools               # tools, resources, templates, prompts
//	  - ping
//	  - method: completion/complete
//	    params: {...}
//	  - call: echo
//	    gen_args: true            # arguments generated from the inputSchema
//	  - complete: {prompt: greet, argument: name, value: A}
//	flows:                        # scripted sequences (see scenarioFlow)
//	  - name: agent
//	    steps: [...]
//
// Unknown keys are errors, so a misspelled key never silently drops a
// setting.
type scenarioFile struct {
	Data     string         `yaml:"data"`
	Requests []scenarioReq  `yaml:"requests"`
	Flows    []scenarioFlow `yaml:"flows"`
}

type scenarioReq struct {
	Name    string   `yaml:"name"`
	Weight  *float64 `yaml:"weight"`
	Call    string   `yaml:"call"`
	Read    string   `yaml:"read"`
	Prompt  string   `yaml:"prompt"`
	List    string   `yaml:"list"`
	Method  string   `yaml:"method"`
	Args    any      `yaml:"args"`
	Params  any      `yaml:"params"`
	GenArgs bool     `yaml:"gen_args"`
	// Complete is completion/complete's shorthand: a prompt or a resource
	// template, the argument and its value so far.
	Complete *scenarioComplete `yaml:"complete"`
}

type scenarioComplete struct {
	Prompt   string `yaml:"prompt"`
	Resource string `yaml:"resource"`
	Argument string `yaml:"argument"`
	Value    string `yaml:"value"`
}

// params are completion/complete's params for c.
func (c *scenarioComplete) params() (map[string]any, error) {
	ref := map[string]any{}
	switch {
	case c.Prompt != "" && c.Resource != "":
		return nil, errors.New("complete: give a prompt or a resource, not both")
	case c.Prompt != "":
		ref["type"], ref["name"] = "ref/prompt", c.Prompt
	case c.Resource != "":
		ref["type"], ref["uri"] = "ref/resource", c.Resource
	default:
		return nil, errors.New("complete: give the prompt or the resource (template URI) to complete for")
	}
	if c.Argument == "" {
		return nil, errors.New("complete: give the argument to complete")
	}
	return map[string]any{"ref": ref, "argument": map[string]any{"name": c.Argument, "value": c.Value}}, nil
}

// UnmarshalYAML accepts a bare method name ("- ping") as an item.
func (r *scenarioReq) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		r.Method = n.Value
		return nil
	}
	type plain scenarioReq
	var p plain
	if err := decodeStrict(n, &p); err != nil {
		return err
	}
	*r = scenarioReq(p)
	return nil
}

// decodeStrict decodes a node refusing unknown keys (Node.Decode has no
// KnownFields switch, so it goes through an encoder/decoder pair).
func decodeStrict(n *yaml.Node, v any) error {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	if err := enc.Encode(n); err != nil {
		return err
	}
	dec := yaml.NewDecoder(&buf)
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	return nil
}

var listMethods = map[string]string{
	"tools":     messages.MethodToolsList,
	"resources": messages.MethodResourcesList,
	"templates": messages.MethodResourcesTemplatesList,
	"prompts":   messages.MethodPromptsList,
}

// LoadScenario reads a YAML scenario file, and its data file if it names
// one.
func LoadScenario(path string) (*Workload, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	w, err := ParseScenario(b)
	if err == nil {
		err = w.Validate() // a flow's mistakes, before any server starts
	}
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", path, err)
	}
	if w.DataFile != "" {
		if !filepath.IsAbs(w.DataFile) {
			w.DataFile = filepath.Join(filepath.Dir(path), w.DataFile)
		}
		if w.Rows, err = LoadData(w.DataFile); err != nil {
			return nil, fmt.Errorf("scenario %s: %w", path, err)
		}
	}
	return w, nil
}

// ParseScenario parses a YAML scenario (see scenarioFile). The data file,
// if any, is named in DataFile but not read.
func ParseScenario(b []byte) (*Workload, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var f scenarioFile
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty scenario")
		}
		return nil, plainYAMLError(err)
	}
	if len(f.Requests)+len(f.Flows) == 0 {
		return nil, errors.New(`no "requests" and no "flows"`)
	}
	w := &Workload{DataFile: f.Data}
	for i, s := range f.Requests {
		r, err := s.request()
		if err != nil {
			return nil, fmt.Errorf("request %d: %w", i+1, err)
		}
		w.Requests = append(w.Requests, r)
	}
	for i, sf := range f.Flows {
		fl, err := sf.flow(i)
		if err != nil {
			return nil, err
		}
		w.Flows = append(w.Flows, fl)
	}
	return w, nil
}

func (s scenarioReq) request() (Request, error) {
	r := Request{Name: s.Name, Weight: 1, GenArgs: s.GenArgs}
	if s.Weight != nil {
		if *s.Weight < 0 {
			return r, errors.New("weight must not be negative")
		}
		r.Weight = *s.Weight
	}
	kinds := 0
	for _, k := range []string{s.Call, s.Read, s.Prompt, s.List, s.Method} {
		if k != "" {
			kinds++
		}
	}
	if s.Complete != nil {
		kinds++
	}
	if kinds != 1 {
		return r, errors.New("give exactly one of call, read, prompt, list, complete or method")
	}
	if s.Args != nil && s.Params != nil {
		return r, errors.New("give args or params, not both")
	}
	args := s.Args
	if args == nil {
		args = s.Params
	}
	switch {
	case s.Call != "":
		r.Method, r.Tool = messages.MethodToolsCall, s.Call
	case s.Read != "":
		r.Method, r.URI = messages.MethodResourcesRead, s.Read
	case s.Prompt != "":
		r.Method, r.Prompt = messages.MethodPromptsGet, s.Prompt
	case s.List != "":
		m, ok := listMethods[strings.ToLower(s.List)]
		if !ok {
			return r, fmt.Errorf("list %q: use tools, resources, templates or prompts", s.List)
		}
		r.Method = m
	case s.Complete != nil:
		if args != nil {
			return r, errors.New("complete: its params come from complete; give no args or params")
		}
		p, err := s.Complete.params()
		if err != nil {
			return r, err
		}
		r.Method, args = messages.MethodCompletionComplete, p
	default:
		r.Method = s.Method
	}
	if args != nil {
		r.Args = normalizeYAML(args)
	}
	return r, nil
}

// normalizeYAML turns YAML's decoded maps into map[string]any so the
// value encodes as JSON.
func normalizeYAML(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeYAML(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = normalizeYAML(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeYAML(e)
		}
		return out
	}
	return v
}
