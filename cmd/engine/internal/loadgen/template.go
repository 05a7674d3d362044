package loadgen

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"text/template"
	"time"
)

// TemplateData is what an argument template sees.
type TemplateData struct {
	// N is the request number in the run, from 0, warm-up included.
	N int64
	// Session is the session's index (0 to sessions-1); SessionName its
	// engine name ("load-3"); Conn counts the session's connections from
	// 0 (it grows only in churn mode).
	Session     int
	SessionName string
	Conn        int64
	// Worker is the caller's index within its session.
	Worker int
	// Row is the data file's row for this request (row N modulo the
	// number of rows), nil without a data file. A flow's steps share
	// their iteration's row.
	Row map[string]any
	// Vars are the values a flow's earlier steps extracted from their
	// answers in this iteration (nil outside a flow).
	Vars map[string]any
}

// templateFuncs are the functions argument templates can use. Random
// values come from math/rand/v2's global source, which is safe and cheap
// from many goroutines at once.
var templateFuncs = template.FuncMap{
	// randInt returns an integer in [lo, hi].
	"randInt": func(lo, hi int) int {
		if hi < lo {
			lo, hi = hi, lo
		}
		return lo + mrand.IntN(hi-lo+1)
	},
	// randFloat returns a number in [lo, hi).
	"randFloat": func(lo, hi float64) float64 { return lo + mrand.Float64()*(hi-lo) },
	// randString returns n random lowercase letters.
	"randString": func(n int) string {
		const letters = "abcdefghijklmnopqrstuvwxyz"
		b := make([]byte, max(n, 0))
		for i := range b {
			b[i] = letters[mrand.IntN(len(letters))]
		}
		return string(b)
	},
	// pick returns one of its arguments at random.
	"pick": func(vs ...any) any {
		if len(vs) == 0 {
			return nil
		}
		return vs[mrand.IntN(len(vs))]
	},
	// uuid returns a random (version 4) UUID.
	"uuid": func() string {
		var b [16]byte
		_, _ = rand.Read(b[:])
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		h := hex.EncodeToString(b[:])
		return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	},
	// json encodes a value as JSON: {{json .Row.name}} is a quoted,
	// escaped string, safe inside a JSON template.
	"json": func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	},
	// now is the time in Unix milliseconds.
	"now": func() int64 { return time.Now().UnixMilli() },
	"add": func(a, b int64) int64 { return a + b },
	"mod": func(a, b int64) int64 {
		if b == 0 {
			return 0
		}
		return a % b
	},
}

// isTemplate reports whether s uses template actions.
func isTemplate(s string) bool { return strings.Contains(s, "{{") }

// parseTemplate parses one argument template; name says where it came
// from in error messages.
func parseTemplate(name, text string) (*template.Template, error) {
	t, err := template.New(name).Funcs(templateFuncs).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, &TemplateError{Request: name, Err: err}
	}
	return t, nil
}

// render executes t into a fresh byte slice.
func render(t *template.Template, td *TemplateData) ([]byte, error) {
	var buf bytes.Buffer
	if err := t.Execute(&buf, td); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// argNode is an argument value whose strings may be templates: a tree
// from a YAML scenario, rendered leaf by leaf and then encoded, so a
// templated string is always valid JSON whatever its value holds.
type argNode struct {
	tmpl   *template.Template // a templated string
	value  any                // a scalar that is not a template
	object []argField
	array  []*argNode
	kind   byte // 's' template string, 'v' value, 'o' object, 'a' array
}

type argField struct {
	key  string
	node *argNode
}

// compileArgTree turns a decoded YAML/JSON value into an argNode, or
// reports that it has no template at all (then it is encoded once).
func compileArgTree(name string, v any) (n *argNode, templated bool, err error) {
	switch x := v.(type) {
	case string:
		if !isTemplate(x) {
			return &argNode{kind: 'v', value: x}, false, nil
		}
		t, err := parseTemplate(name, x)
		if err != nil {
			return nil, false, err
		}
		return &argNode{kind: 's', tmpl: t}, true, nil
	case map[string]any:
		n := &argNode{kind: 'o'}
		for _, k := range sortedKeys(x) {
			c, tt, err := compileArgTree(name+"."+k, x[k])
			if err != nil {
				return nil, false, err
			}
			templated = templated || tt
			n.object = append(n.object, argField{k, c})
		}
		return n, templated, nil
	case []any:
		n := &argNode{kind: 'a'}
		for i, e := range x {
			c, tt, err := compileArgTree(fmt.Sprintf("%s[%d]", name, i), e)
			if err != nil {
				return nil, false, err
			}
			templated = templated || tt
			n.array = append(n.array, c)
		}
		return n, templated, nil
	}
	return &argNode{kind: 'v', value: v}, false, nil
}

// appendJSON renders n as JSON.
func (n *argNode) appendJSON(buf []byte, td *TemplateData) ([]byte, error) {
	switch n.kind {
	case 's':
		s, err := render(n.tmpl, td)
		if err != nil {
			return buf, err
		}
		return appendJSONValue(buf, string(s))
	case 'o':
		buf = append(buf, '{')
		for i, f := range n.object {
			if i > 0 {
				buf = append(buf, ',')
			}
			var err error
			if buf, err = appendJSONValue(buf, f.key); err != nil {
				return buf, err
			}
			buf = append(buf, ':')
			if buf, err = f.node.appendJSON(buf, td); err != nil {
				return buf, err
			}
		}
		return append(buf, '}'), nil
	case 'a':
		buf = append(buf, '[')
		for i, e := range n.array {
			if i > 0 {
				buf = append(buf, ',')
			}
			var err error
			if buf, err = e.appendJSON(buf, td); err != nil {
				return buf, err
			}
		}
		return append(buf, ']'), nil
	}
	return appendJSONValue(buf, n.value)
}

func appendJSONValue(buf []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return buf, err
	}
	return append(buf, b...), nil
}
