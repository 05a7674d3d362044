package loadgen

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpengine/mcpengine/messages"
)

// outputCheck validates tools/call results against the tool's
// outputSchema: the specification says a server that declares one MUST
// return structuredContent conforming to it, so a result that does not is
// a failure of its own class, not a success.
type outputCheck struct {
	tool   string
	schema *jsonschema.Schema
}

// noLoader refuses to fetch referenced schemas: a load test must not make
// network requests of its own, and tool schemas are self-contained.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema reference %s not followed (tool schemas must be self-contained)", url)
}

// newOutputCheck compiles a tool's outputSchema (nil, nil if it has none).
func newOutputCheck(tool string, schema messages.RawMessage) (*outputCheck, error) {
	if len(bytes.TrimSpace(schema)) == 0 || string(schema) == "null" {
		return nil, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("tool %s: outputSchema is not JSON: %w", tool, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020) // MCP's default dialect
	c.UseLoader(noLoader{})
	url := "mem:///tools/" + tool + "/outputSchema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("tool %s: outputSchema: %w", tool, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("tool %s: outputSchema does not compile: %w", tool, err)
	}
	return &outputCheck{tool: tool, schema: s}, nil
}

// toolResult is the part of a tools/call result the run checks.
type toolResult struct {
	IsError           bool                `json:"isError"`
	StructuredContent messages.RawMessage `json:"structuredContent"`
	Content           []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// errorText describes an isError result by its text content.
func (r *toolResult) errorText() error {
	var texts []string
	for _, b := range r.Content {
		if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
			texts = append(texts, strings.TrimSpace(b.Text))
		}
	}
	if len(texts) == 0 {
		return errors.New("tool result has isError: true")
	}
	return fmt.Errorf("tool result has isError: true: %s", strings.Join(texts, "; "))
}

// validate checks a successful result's structuredContent.
func (c *outputCheck) validate(r *toolResult) error {
	sc := bytes.TrimSpace(r.StructuredContent)
	if len(sc) == 0 || string(sc) == "null" {
		return fmt.Errorf("tool %s declares an outputSchema but the result has no structuredContent", c.tool)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(sc))
	if err != nil {
		return fmt.Errorf("tool %s: structuredContent is not JSON: %w", c.tool, err)
	}
	if err := c.schema.Validate(v); err != nil {
		return fmt.Errorf("tool %s: structuredContent does not match its outputSchema: %s", c.tool, oneLineValidation(err))
	}
	return nil
}

// oneLineValidation keeps the causes of a validation error, one line:
// its first line only names the schema's made-up URL.
func oneLineValidation(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	if len(lines) > 1 {
		lines = lines[1:]
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(strings.TrimSpace(l), "- ")
	}
	return strings.Join(lines, "; ")
}
