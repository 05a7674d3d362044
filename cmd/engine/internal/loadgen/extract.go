package loadgen

import (
	"fmt"
	mrand "math/rand/v2"
	"regexp"

	"github.com/ohler55/ojg/jp"
)

// Extraction names a value taken from a step's answer by a JSONPath
// expression over the result object ($.tools[0].name,
// $.structuredContent.id, $.contents[?(@.mimeType=='text/plain')].uri).
//
// JSONPath rather than Go templates over the result: an expression is
// parsed once when the scenario loads (a typo is a usage error, not a
// stream of failed steps), and it filters and indexes JSON directly,
// where a template needs index/range gymnastics over map[string]any.
// The values it takes are then used by the templates the workload
// already has ({{.Vars.name}}, next to {{.Row.col}}).
type Extraction struct {
	Var  string `json:"var"`
	Path string `json:"path"`
	// Pick chooses among several matches: first (default), last, random,
	// or all (a list).
	Pick string `json:"pick,omitempty"`
}

type extraction struct {
	Extraction
	expr jp.Expr
}

var varName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func compileExtraction(e Extraction) (*extraction, error) {
	if !varName.MatchString(e.Var) {
		return nil, fmt.Errorf("extract: %q is not a variable name (letters, digits and _, for {{.Vars.%s}})", e.Var, e.Var)
	}
	if e.Path == "" {
		return nil, fmt.Errorf("extract.%s: no JSONPath", e.Var)
	}
	x, err := jp.ParseString(e.Path)
	if err != nil {
		return nil, fmt.Errorf("extract.%s: JSONPath %q: %v", e.Var, e.Path, err)
	}
	switch e.Pick {
	case "", "first", "last", "random", "all":
	default:
		return nil, fmt.Errorf("extract.%s: pick %q: use first, last, random or all", e.Var, e.Pick)
	}
	return &extraction{Extraction: e, expr: x}, nil
}

// take applies the extraction to a decoded result; ok is false when the
// path matched nothing (the step then fails its checks: a later step
// would send a request without the value).
func (x *extraction) take(doc any) (v any, ok bool) {
	found := x.expr.Get(doc)
	if len(found) == 0 {
		return nil, false
	}
	switch x.Pick {
	case "last":
		return found[len(found)-1], true
	case "random":
		return found[mrand.IntN(len(found))], true
	case "all":
		return found, true
	}
	return found[0], true
}
