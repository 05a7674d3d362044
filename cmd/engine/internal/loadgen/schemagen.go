package loadgen

import (
	"encoding/json"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"sort"
	"strings"

	"github.com/mcpengine/mcpengine/messages"
)

// argGen generates random arguments that satisfy a tool's inputSchema.
// It understands the subset of JSON Schema that tool schemas use in
// practice: type (one or a list), properties, required, enum, const,
// default, minimum/maximum (and exclusive), minLength/maxLength,
// items/minItems/maxItems, format (uuid, date-time, email, uri), anyOf,
// oneOf, and local $ref into $defs. Optional properties are included
// about half the time. Anything it does not understand yields the
// simplest value of the declared type, so a schema it cannot satisfy shows
// up as the server's error, not as a crash of the load test.
type argGen struct {
	root map[string]any
}

func newArgGen(schema messages.RawMessage) (*argGen, error) {
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil || root == nil {
		return nil, fmt.Errorf("inputSchema is not a JSON object")
	}
	return &argGen{root: root}, nil
}

// generate returns one set of arguments as a JSON object.
func (g *argGen) generate() messages.RawMessage {
	v := g.value(g.root, 0)
	if _, ok := v.(map[string]any); !ok {
		v = map[string]any{}
	}
	b, _ := json.Marshal(v)
	return b
}

const maxGenDepth = 8

func (g *argGen) value(s map[string]any, depth int) any {
	if depth > maxGenDepth {
		return nil
	}
	if ref, ok := s["$ref"].(string); ok {
		if t := g.resolve(ref); t != nil {
			return g.value(t, depth+1)
		}
	}
	if c, ok := s["const"]; ok {
		return c
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[mrand.IntN(len(e))]
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			if a, ok := alts[mrand.IntN(len(alts))].(map[string]any); ok {
				return g.value(a, depth+1)
			}
		}
	}
	if all, ok := s["allOf"].([]any); ok && len(all) > 0 {
		merged := map[string]any{}
		for _, a := range all {
			if m, ok := a.(map[string]any); ok {
				mergeSchema(merged, m)
			}
		}
		mergeSchema(merged, s)
		delete(merged, "allOf")
		return g.value(merged, depth+1)
	}
	switch schemaType(s) {
	case "object":
		return g.object(s, depth)
	case "array":
		return g.array(s, depth)
	case "string":
		return genString(s)
	case "integer":
		return genInteger(s)
	case "number":
		return genNumber(s)
	case "boolean":
		return mrand.IntN(2) == 1
	case "null":
		return nil
	}
	if d, ok := s["default"]; ok {
		return d
	}
	return nil
}

func (g *argGen) resolve(ref string) map[string]any {
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		if name, ok := strings.CutPrefix(ref, prefix); ok {
			defs, _ := g.root[strings.Trim(prefix[1:], "/")].(map[string]any)
			t, _ := defs[name].(map[string]any)
			return t
		}
	}
	if ref == "#" {
		return g.root
	}
	return nil
}

func mergeSchema(dst, src map[string]any) {
	for k, v := range src {
		if k == "properties" {
			p, _ := dst[k].(map[string]any)
			if p == nil {
				p = map[string]any{}
			}
			if sp, ok := v.(map[string]any); ok {
				for pk, pv := range sp {
					p[pk] = pv
				}
			}
			dst[k] = p
			continue
		}
		if k == "required" {
			r, _ := dst[k].([]any)
			if sr, ok := v.([]any); ok {
				dst[k] = append(r, sr...)
			}
			continue
		}
		dst[k] = v
	}
}

// schemaType picks the schema's type (one of a list at random, preferring
// anything but null); an untyped schema with properties is an object.
func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		var opts []string
		for _, x := range t {
			if str, ok := x.(string); ok && str != "null" {
				opts = append(opts, str)
			}
		}
		if len(opts) > 0 {
			return opts[mrand.IntN(len(opts))]
		}
		return "null"
	}
	if _, ok := s["properties"]; ok {
		return "object"
	}
	if _, ok := s["items"]; ok {
		return "array"
	}
	return ""
}

func (g *argGen) object(s map[string]any, depth int) any {
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if r, ok := s["required"].([]any); ok {
		for _, x := range r {
			if name, ok := x.(string); ok {
				required[name] = true
			}
		}
	}
	out := map[string]any{}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		ps, ok := props[k].(map[string]any)
		if !ok {
			continue
		}
		if required[k] || mrand.IntN(2) == 0 {
			out[k] = g.value(ps, depth+1)
		}
	}
	for k := range required {
		if _, ok := out[k]; !ok {
			out[k] = "" // required but not described: the simplest value
		}
	}
	return out
}

func (g *argGen) array(s map[string]any, depth int) any {
	lo, hi := intBound(s, "minItems", 0), intBound(s, "maxItems", -1)
	if hi < 0 {
		hi = lo + 3
	}
	n := lo
	if hi > lo {
		n += mrand.IntN(hi - lo + 1)
	}
	items, _ := s["items"].(map[string]any)
	out := make([]any, n)
	for i := range out {
		if items != nil {
			out[i] = g.value(items, depth+1)
		}
	}
	return out
}

func intBound(s map[string]any, key string, def int) int {
	if f, ok := s[key].(float64); ok && f >= 0 && f < 1e6 {
		return int(f)
	}
	return def
}

func numBounds(s map[string]any) (lo, hi float64) {
	lo, hi = 0, 1000
	if f, ok := s["minimum"].(float64); ok {
		lo = f
		if _, ok := s["maximum"]; !ok {
			hi = lo + 1000
		}
	}
	if f, ok := s["exclusiveMinimum"].(float64); ok {
		lo = f + 1
	}
	if f, ok := s["maximum"].(float64); ok {
		hi = f
		if _, ok := s["minimum"]; !ok && lo > hi {
			lo = hi - 1000
		}
	}
	if f, ok := s["exclusiveMaximum"].(float64); ok {
		hi = f - 1
	}
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

func genInteger(s map[string]any) any {
	lo, hi := numBounds(s)
	l, h := int64(math.Ceil(lo)), int64(math.Floor(hi))
	if h < l {
		return l
	}
	return l + mrand.Int64N(h-l+1)
}

func genNumber(s map[string]any) any {
	lo, hi := numBounds(s)
	return math.Round((lo+mrand.Float64()*(hi-lo))*1000) / 1000
}

func genString(s map[string]any) any {
	switch s["format"] {
	case "uuid":
		return templateFuncs["uuid"].(func() string)()
	case "date-time":
		return "2025-01-02T03:04:05Z"
	case "date":
		return "2025-01-02"
	case "email":
		return templateFuncs["randString"].(func(int) string)(8) + "@example.com"
	case "uri", "url":
		return "https://example.com/" + templateFuncs["randString"].(func(int) string)(6)
	}
	lo, hi := intBound(s, "minLength", 1), intBound(s, "maxLength", -1)
	if hi < 0 {
		hi = max(lo, 12)
	}
	if lo > hi {
		lo = hi
	}
	n := lo
	if hi > lo {
		n += mrand.IntN(hi - lo + 1)
	}
	return templateFuncs["randString"].(func(int) string)(n)
}
