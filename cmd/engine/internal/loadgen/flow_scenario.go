package loadgen

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// scenarioFlow is a flow in the YAML scenario format:
//
//	flows:
//	  - name: agent               # default "flow N"
//	    weight: 2                 # share of the items picked, with requests
//	    think: 50ms..200ms        # pause between steps: fixed or a uniform range
//	    abort_on_fail: true       # a failed step ends the iteration
//	    steps:
//	      - name: discover        # the step's report row and threshold scope
//	        list: tools           # call, read, prompt, list, complete, method
//	        extract:
//	          tool: $.tools[0].name                   # JSONPath, first match
//	          all: {path: "$.tools[*].name", pick: all} # first, last, random, all
//	        check:
//	          exists: [tool]
//	      - call: echo
//	        args: {text: "{{.Vars.tool}} for {{.Row.name}}"}
//	        think: 1s             # this step's pause, instead of the flow's
//	        check:
//	          is_error: false
//	          contains: "echo for"  # or a list; matches: a regexp or a list
//	          schema: true        # structuredContent against the outputSchema
//	          equals: {tool: echo}
//
// Steps are decoded one by one so that a mistake names its flow and step.
type scenarioFlow struct {
	Name        string      `yaml:"name"`
	Weight      *float64    `yaml:"weight"`
	Think       string      `yaml:"think"`
	AbortOnFail bool        `yaml:"abort_on_fail"`
	Steps       []yaml.Node `yaml:"steps"`
}

type scenarioStep struct {
	Name     string                     `yaml:"name"`
	Call     string                     `yaml:"call"`
	Read     string                     `yaml:"read"`
	Prompt   string                     `yaml:"prompt"`
	List     string                     `yaml:"list"`
	Method   string                     `yaml:"method"`
	Complete *scenarioComplete          `yaml:"complete"`
	Args     any                        `yaml:"args"`
	Params   any                        `yaml:"params"`
	Extract  map[string]scenarioExtract `yaml:"extract"`
	Check    scenarioCheck              `yaml:"check"`
	Think    string                     `yaml:"think"`
}

// scenarioExtract is a JSONPath, or {path, pick}.
type scenarioExtract struct {
	Path string `yaml:"path"`
	Pick string `yaml:"pick"`
}

func (e *scenarioExtract) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		e.Path = n.Value
		return nil
	}
	type plain scenarioExtract
	var p plain
	if err := decodeStrict(n, &p); err != nil {
		return err
	}
	*e = scenarioExtract(p)
	return nil
}

type scenarioCheck struct {
	IsError  *bool          `yaml:"is_error"`
	Contains stringList     `yaml:"contains"`
	Matches  stringList     `yaml:"matches"`
	Schema   bool           `yaml:"schema"`
	Exists   stringList     `yaml:"exists"`
	Equals   map[string]any `yaml:"equals"`
}

// stringList is one string or a list of them.
type stringList []string

func (l *stringList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = stringList{n.Value}
		return nil
	}
	var s []string
	if err := n.Decode(&s); err != nil {
		return err
	}
	*l = s
	return nil
}

func (sf scenarioFlow) flow(i int) (Flow, error) {
	f := Flow{Name: sf.Name, Weight: 1, AbortOnFail: sf.AbortOnFail}
	if f.Name == "" {
		f.Name = fmt.Sprintf("flow %d", i+1)
	}
	fail := func(step string, err error) (Flow, error) {
		return f, &FlowError{Flow: f.Name, Step: step, Err: err}
	}
	if sf.Weight != nil {
		if *sf.Weight < 0 {
			return fail("", errors.New("weight must not be negative"))
		}
		f.Weight = *sf.Weight
	}
	if sf.Think != "" {
		t, err := ParseThink(sf.Think)
		if err != nil {
			return fail("", fmt.Errorf("think: %w", err))
		}
		f.Think = t
	}
	if len(sf.Steps) == 0 {
		return fail("", errors.New(`no "steps"`))
	}
	for j := range sf.Steps {
		var ss scenarioStep
		if n := &sf.Steps[j]; n.Kind == yaml.ScalarNode {
			ss.Method = n.Value // "- ping", as in requests
		} else if err := decodeStrict(n, &ss); err != nil {
			return fail(fmt.Sprint(j+1), plainYAMLError(err))
		}
		label := fmt.Sprint(j + 1)
		if ss.Name != "" {
			label = fmt.Sprintf("%d (%s)", j+1, ss.Name)
		}
		st, err := ss.step()
		if err != nil {
			return fail(label, err)
		}
		f.Steps = append(f.Steps, st)
	}
	return f, nil
}

func (ss scenarioStep) step() (Step, error) {
	r, err := scenarioReq{
		Name: ss.Name, Call: ss.Call, Read: ss.Read, Prompt: ss.Prompt, List: ss.List,
		Method: ss.Method, Complete: ss.Complete, Args: ss.Args, Params: ss.Params,
	}.request()
	if err != nil {
		return Step{}, err
	}
	st := Step{Request: r}
	for _, v := range sortedKeys(ss.Extract) {
		e := ss.Extract[v]
		st.Extract = append(st.Extract, Extraction{Var: v, Path: e.Path, Pick: e.Pick})
	}
	c := ss.Check
	st.Check = Check{IsError: c.IsError, Contains: c.Contains, Matches: c.Matches, Schema: c.Schema, Exists: c.Exists, Equals: c.Equals}
	if ss.Think != "" {
		t, err := ParseThink(ss.Think)
		if err != nil {
			return st, fmt.Errorf("think: %w", err)
		}
		st.Think = &t
	}
	return st, nil
}

var (
	yamlGoType   = regexp.MustCompile(` (in type|into) [\w.*\[\]]+`)
	yamlPrefixes = regexp.MustCompile(`yaml: unmarshal errors:\s*`)
	// decodeStrict re-encodes a node, so a line inside it counts from the
	// node: the first line number (the file's) is the one to keep.
	yamlInnerLine = regexp.MustCompile(`(line \d+: )(?:line \d+: )+`)
)

// plainYAMLError drops the Go types from a YAML decoding error: "field
// chek not found" says enough.
func plainYAMLError(err error) error {
	msg := yamlGoType.ReplaceAllString(err.Error(), "")
	msg = yamlPrefixes.ReplaceAllString(msg, "")
	msg = yamlInnerLine.ReplaceAllString(strings.Join(strings.Fields(msg), " "), "$1")
	return errors.New(strings.Join(strings.Fields(msg), " "))
}
