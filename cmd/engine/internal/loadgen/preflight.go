package loadgen

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpengine/mcpengine/internal/configcheck"
	"github.com/mcpengine/mcpengine/messages"
)

// PreflightError is a workload the server's tools/list already rules out:
// a tool it does not have, or arguments its inputSchema refuses. The run
// does not start (Config.NoPreflight runs it anyway, to load-test error
// paths).
type PreflightError struct {
	Request string
	// Flow and Step name the flow step instead of a request of the mix.
	Flow, Step string
	Problem    string
}

func (e *PreflightError) Error() string {
	if e.Flow != "" {
		return fmt.Sprintf("flow %q step %q: %s", e.Flow, e.Step, e.Problem)
	}
	return "request " + e.Request + ": " + e.Problem
}

// preflightError words a problem with q, a request or a flow step.
func preflightError(q *request, problem string) *PreflightError {
	if q.flow != nil {
		return &PreflightError{Flow: q.flow.Name, Step: q.Name, Problem: problem}
	}
	return &PreflightError{Request: q.Name, Problem: problem}
}

// missingTool words a tool that tools/list does not have, naming the
// closest one it does.
func missingTool(name string, have []string) string {
	msg := fmt.Sprintf("the server has no tool %q", name)
	if len(have) == 0 {
		return msg + " (its tools/list is empty)"
	}
	best, bestDist := "", -1
	for _, h := range have {
		if d := configcheck.Distance(strings.ToLower(name), strings.ToLower(h)); bestDist < 0 || d < bestDist {
			best, bestDist = h, d
		}
	}
	if bestDist <= max(2, len(name)/3) {
		return msg + fmt.Sprintf("; did you mean %q?", best)
	}
	sort.Strings(have)
	if len(have) > 8 {
		have = append(have[:8:8], "…")
	}
	return msg + " (it has " + strings.Join(have, ", ") + ")"
}

// checkArguments validates the arguments of one rendered tools/call
// against the tool's inputSchema; "" when they fit or there is no schema
// to hold them to.
func checkArguments(tool string, inputSchema, params messages.RawMessage) (string, error) {
	s, err := compileToolSchema(tool, "inputSchema", inputSchema)
	if err != nil || s == nil {
		return "", err
	}
	var p struct {
		Arguments messages.RawMessage `json:"arguments"`
	}
	if err := messages.Unmarshal(params, &p); err != nil {
		return "", err
	}
	args := p.Arguments
	if len(bytes.TrimSpace(args)) == 0 || string(args) == "null" {
		args = messages.RawMessage(`{}`)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return "", err
	}
	err = s.Validate(v)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return "", err
	}
	return "its arguments " + clip(args) + " do not fit the tool's inputSchema: " + oneLineValidation(err), nil
}
