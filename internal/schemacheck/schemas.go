package schemacheck

import (
	"bytes"
	"embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed schemas/*/schema.json
var schemaFS embed.FS

// versionSchema is one protocol version's schema: its definitions indexed
// by method, and compiled definitions cached on first use.
type versionSchema struct {
	version  string
	url      string // the resource's made-up location, for $ref resolution
	defsKey  string // "definitions" (draft-07) or "$defs" (2020-12)
	defs     map[string]any
	requests map[string]string // method -> *Request definition
	notifs   map[string]string // method -> *Notification definition

	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

var (
	loadOnce sync.Once
	loadErr  error
	schemas  map[string]*versionSchema
)

func load() (map[string]*versionSchema, error) {
	loadOnce.Do(func() { schemas, loadErr = loadAll() })
	return schemas, loadErr
}

func loadAll() (map[string]*versionSchema, error) {
	dirs, err := schemaFS.ReadDir("schemas")
	if err != nil {
		return nil, err
	}
	out := make(map[string]*versionSchema, len(dirs))
	for _, d := range dirs {
		vs, err := loadVersion(d.Name())
		if err != nil {
			return nil, fmt.Errorf("schemacheck: %s: %w", d.Name(), err)
		}
		out[vs.version] = vs
	}
	return out, nil
}

func loadVersion(version string) (*versionSchema, error) {
	raw, err := schemaFS.ReadFile("schemas/" + version + "/schema.json")
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema is not an object")
	}
	vs := &versionSchema{
		version:  version,
		url:      "https://schemas.mcpengine.invalid/" + version + "/schema.json",
		requests: map[string]string{},
		notifs:   map[string]string{},
		compiled: map[string]*jsonschema.Schema{},
	}
	for _, key := range []string{"$defs", "definitions"} {
		if defs, ok := root[key].(map[string]any); ok {
			vs.defsKey, vs.defs = key, defs
			break
		}
	}
	if vs.defs == nil {
		return nil, fmt.Errorf("schema has neither $defs nor definitions")
	}
	vs.indexMethods()
	vs.compiler = jsonschema.NewCompiler()
	// Draft-07 asserts "format" by default and 2020-12 does not; assert it
	// everywhere so that a non-URI "uri" fails in every version alike.
	vs.compiler.AssertFormat()
	if err := vs.compiler.AddResource(vs.url, doc); err != nil {
		return nil, err
	}
	return vs, nil
}

// indexMethods maps each method to the definition whose "method" property
// is that constant. The definition's name says whether it is a request or
// a notification.
func (vs *versionSchema) indexMethods() {
	for name, def := range vs.defs {
		m, ok := def.(map[string]any)
		if !ok {
			continue
		}
		props, _ := m["properties"].(map[string]any)
		method, _ := props["method"].(map[string]any)
		c, ok := method["const"].(string)
		if !ok {
			continue
		}
		switch {
		case strings.HasSuffix(name, "Request"):
			vs.requests[c] = name
		case strings.HasSuffix(name, "Notification"):
			vs.notifs[c] = name
		}
	}
}

// schema returns the compiled definition name.
func (vs *versionSchema) schema(name string) (*jsonschema.Schema, error) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if s, ok := vs.compiled[name]; ok {
		return s, nil
	}
	if _, ok := vs.defs[name]; !ok {
		return nil, fmt.Errorf("definition %s does not exist in protocol version %s", name, vs.version)
	}
	s, err := vs.compiler.Compile(vs.url + "#/" + vs.defsKey + "/" + name)
	if err != nil {
		return nil, err
	}
	vs.compiled[name] = s
	return s, nil
}

func (vs *versionSchema) has(name string) bool {
	_, ok := vs.defs[name]
	return ok
}

// Versions lists the embedded protocol versions, oldest first. The schemas
// are compiled into the binary, so failing to read them is a build defect:
// it panics rather than return an empty list that would let callers' tests
// loop over nothing and pass.
func Versions() []string {
	all, err := load()
	if err != nil {
		panic(err)
	}
	out := make([]string, 0, len(all))
	for v := range all {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

func lookup(version string) (*versionSchema, error) {
	all, err := load()
	if err != nil {
		return nil, err
	}
	vs, ok := all[version]
	if !ok {
		return nil, fmt.Errorf("schemacheck: no schema for protocol version %q", version)
	}
	return vs, nil
}
