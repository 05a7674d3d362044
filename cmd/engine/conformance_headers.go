package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mcpengine/mcpengine/messages"
)

// callContextTools makes the tool calls the scenario lists in
// MCP_CONFORMANCE_CONTEXT ({"toolCalls":[{"name":…,"arguments":{…}}]}),
// as http-custom-headers does: the engine mirrors the arguments whose
// property carries x-mcp-header into Mcp-Param-* headers, from the
// schema of the tools/list before (tool_headers.go in the root package).
func callContextTools(ctx context.Context, r *conformanceRun) error {
	var cc struct {
		ToolCalls []struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"toolCalls"`
	}
	raw := os.Getenv(contextEnv)
	if raw == "" {
		return fmt.Errorf("%s is not set: the scenario names the tool calls to make there", contextEnv)
	}
	if err := messages.Unmarshal([]byte(raw), &cc); err != nil {
		return fmt.Errorf("%s is not the JSON expected: %w", contextEnv, err)
	}
	for _, c := range cc.ToolCalls {
		if err := r.call(ctx, c.Name, c.Arguments); err != nil {
			return err
		}
	}
	return nil
}

// callListedTools calls every tool of the last tools/list, each with a
// value of the right type for every required property. In 2026-07-28 the
// engine's ListTools has already left out the tools whose x-mcp-header
// annotations are invalid (SEP-2243), which http-invalid-tool-headers
// checks are never called.
func callListedTools(ctx context.Context, r *conformanceRun) error {
	for _, t := range r.tools {
		if err := r.call(ctx, t.Name, sampleArguments(t.InputSchema)); err != nil {
			return err
		}
	}
	return nil
}

// sampleArguments gives each required property of a flat inputSchema a
// value of its type.
func sampleArguments(schema messages.RawMessage) map[string]any {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	args := map[string]any{}
	if messages.Unmarshal(schema, &s) != nil {
		return args
	}
	for _, name := range s.Required {
		switch s.Properties[name].Type {
		case "integer", "number":
			args[name] = 1
		case "boolean":
			args[name] = true
		case "object":
			args[name] = map[string]any{}
		case "array":
			args[name] = []any{}
		default:
			args[name] = "conformance"
		}
	}
	return args
}
