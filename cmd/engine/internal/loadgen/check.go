package loadgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpengine/mcpengine/messages"
)

// Check is what a flow step's answer must hold. A failed check fails the
// step with the class CheckFailed: the server answered, and answered
// wrong, which is neither a transport nor a protocol failure.
type Check struct {
	// IsError, if set, is the isError a tools/call result must have.
	// Unset, isError true fails the step as a tool error (as in the mix);
	// set to true, an isError result is what the step expects.
	IsError *bool `json:"is_error,omitempty"`
	// Contains and Matches hold for the answer's text: the text of its
	// content blocks (tools/call), of its contents (resources/read), of
	// its messages (prompts/get), or the result's JSON for other methods.
	// Each must hold for that text (Contains: a substring; Matches: a Go
	// regular expression).
	Contains []string `json:"contains,omitempty"`
	Matches  []string `json:"matches,omitempty"`
	// Schema requires the tool's outputSchema: the step fails preflight
	// if the tool declares none, and its structuredContent is validated
	// even with Config.NoOutputCheck (a mismatch is a SchemaError).
	Schema bool `json:"schema,omitempty"`
	// Exists are variables that must have been extracted (and not be
	// null); Equals variables that must equal a value (compared as JSON:
	// 3 equals 3.0).
	Exists []string       `json:"exists,omitempty"`
	Equals map[string]any `json:"equals,omitempty"`
}

// stepCheck is a compiled Check.
type stepCheck struct {
	Check
	matches []*regexp.Regexp
	equals  []equalCheck
}

type equalCheck struct {
	name string
	want []byte // JSON
}

func compileCheck(c Check, q *request, known []string) (*stepCheck, error) {
	sc := &stepCheck{Check: c}
	if c.IsError != nil && q.Method != messages.MethodToolsCall {
		return nil, fmt.Errorf("check.is_error: applies to tools/call, not %s", q.Method)
	}
	if c.Schema && q.Method != messages.MethodToolsCall {
		return nil, fmt.Errorf("check.schema: applies to tools/call, not %s", q.Method)
	}
	for _, m := range c.Matches {
		re, err := regexp.Compile(m)
		if err != nil {
			return nil, fmt.Errorf("check.matches: %v", err)
		}
		sc.matches = append(sc.matches, re)
	}
	for _, v := range c.Exists {
		if !slices.Contains(known, v) {
			return nil, fmt.Errorf("check.exists: %s is not extracted by this step or an earlier one%s", v, extractedList(known))
		}
	}
	for _, k := range sortedKeys(c.Equals) {
		if !slices.Contains(known, k) {
			return nil, fmt.Errorf("check.equals: %s is not extracted by this step or an earlier one%s", k, extractedList(known))
		}
		b, err := json.Marshal(normalizeYAML(c.Equals[k]))
		if err != nil {
			return nil, fmt.Errorf("check.equals.%s: %v", k, err)
		}
		sc.equals = append(sc.equals, equalCheck{k, b})
	}
	return sc, nil
}

// needsText reports whether the checks read the answer's text.
func (c *stepCheck) needsText() bool { return len(c.Contains) > 0 || len(c.matches) > 0 }

// judgeText holds the answer's text to Contains and Matches.
func (c *stepCheck) judgeText(text string) error {
	for _, s := range c.Contains {
		if !strings.Contains(text, s) {
			return fmt.Errorf("check contains %q: not in %q", s, clip([]byte(text)))
		}
	}
	for _, re := range c.matches {
		if !re.MatchString(text) {
			return fmt.Errorf("check matches %q: no match in %q", re.String(), clip([]byte(text)))
		}
	}
	return nil
}

// judgeVars holds the iteration's variables to Exists and Equals.
func (c *stepCheck) judgeVars(vars map[string]any) error {
	for _, v := range c.Exists {
		if vars[v] == nil {
			return fmt.Errorf("check exists %s: not extracted", v)
		}
	}
	for _, e := range c.equals {
		got, err := json.Marshal(vars[e.name])
		if err != nil || !jsonEqual(got, e.want) {
			return fmt.Errorf("check equals %s: got %s, want %s", e.name, clip(got), e.want)
		}
	}
	return nil
}

// jsonEqual compares two JSON texts as values (key order and number
// spelling aside).
func jsonEqual(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ax, _ := json.Marshal(x)
	by, _ := json.Marshal(y)
	return bytes.Equal(ax, by)
}

// resultText is the text of an answer that Contains and Matches read.
func resultText(method string, raw messages.RawMessage) string {
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	var texts []string
	switch method {
	case messages.MethodToolsCall:
		var r struct {
			Content []block `json:"content"`
		}
		_ = messages.Unmarshal(raw, &r)
		for _, b := range r.Content {
			if b.Type == "text" {
				texts = append(texts, b.Text)
			}
		}
	case messages.MethodResourcesRead:
		var r struct {
			Contents []struct {
				Text string `json:"text"`
			} `json:"contents"`
		}
		_ = messages.Unmarshal(raw, &r)
		for _, c := range r.Contents {
			texts = append(texts, c.Text)
		}
	case messages.MethodPromptsGet:
		var r struct {
			Messages []struct {
				Content block `json:"content"`
			} `json:"messages"`
		}
		_ = messages.Unmarshal(raw, &r)
		for _, m := range r.Messages {
			if m.Content.Type == "text" {
				texts = append(texts, m.Content.Text)
			}
		}
	default:
		return string(raw)
	}
	return strings.Join(texts, "\n")
}
