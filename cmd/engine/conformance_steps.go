package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// conformanceRun is one run of engine conformance: the session connected
// to the scenario's server and what the steps learned so far.
type conformanceRun struct {
	s        *mcpengine.Session
	out      io.Writer
	scenario string
	tools    []messages.Tool // the last tools/list
	skills   []skillEntry    // the last skills/list
}

// conformanceStep is one thing the client does for a scenario, after
// connecting (initialize and notifications/initialized, or nothing but
// server/discover in 2026-07-28, which every scenario needs).
type conformanceStep func(ctx context.Context, r *conformanceRun) error

// conformanceScenarios are the client scenarios this command knows
// (docs/CONFORMANCE.md says what the suite checks in each). The auth/*
// ones share one list of steps (scenarioSteps); any other scenario gets
// listOffered.
var conformanceScenarios = map[string][]conformanceStep{
	"initialize": nil,
	"tools_call": {stepListTools, stepCallTool("add_numbers", map[string]any{"a": 5, "b": 3})},
	"elicitation-sep1034-client-defaults": {
		stepListTools, stepCallTool("test_client_elicitation_defaults", map[string]any{}),
	},
	// The tools/call answer arrives only after the engine resumed the
	// closed SSE stream with GET + Last-Event-ID, honouring retry: 500.
	"sse-retry": {stepListTools, stepCallTool("test_reconnection", map[string]any{})},
	// The server refuses the first request with -32022 naming the version
	// it refused; the handshake sends it again. It declares nothing.
	"request-metadata": {listOffered},
	// SEP-2322 multi round-trip requests: the engine answers each
	// input_required with the elicitation handler and sends the call
	// again with the server's requestState, exactly, under a new id; a
	// call between rounds carries nothing of them; a result without
	// resultType is complete.
	"sep-2322-client-request-state": {
		stepListTools,
		stepCallTool("test_mrtr_echo_state", map[string]any{}),
		stepCallTool("test_mrtr_no_state", map[string]any{}),
		stepCallTool("test_mrtr_unrelated", map[string]any{}),
		stepCallTool("test_mrtr_no_result_type", map[string]any{}),
	},
	// SEP-2243: Mcp-Method on every POST, Mcp-Name on tools/call,
	// resources/read and prompts/get, names with hyphens and URIs with
	// spaces and queries included.
	"http-standard-headers":     {stepListTools, callListedTools, readEveryResource, getEveryPrompt},
	"http-custom-headers":       {stepListTools, callContextTools},
	"http-invalid-tool-headers": {stepListTools, callListedTools},
	// SEP-2106: listing the tools must not fetch the network $ref of an
	// inputSchema.
	"json-schema-ref-no-deref":         {stepListTools},
	"json-schema-2020-12-preservation": {stepListTools, echoToolSchema},
	// SEP-2640 skills: a host lists skills without reading their files;
	// loading one reads SKILL.md and verifies it (size, digest,
	// frontmatter) before anything else of it is read.
	"sep-2640-client-no-prefetch":        {listSkills},
	"sep-2640-client-verify-digest":      {listSkills, loadSkills},
	"sep-2640-client-verify-size":        {listSkills, loadSkills},
	"sep-2640-client-verify-frontmatter": {listSkills, loadSkills},
}

// scenarioSteps returns the steps of a scenario, and whether it is one
// this command knows.
func scenarioSteps(scenario string) ([]conformanceStep, bool) {
	if steps, ok := conformanceScenarios[scenario]; ok {
		return steps, true
	}
	if strings.HasPrefix(scenario, "auth/") {
		// The auth scenarios' servers guard their one tool: listing and
		// calling it is what needs a token (and, in scope-step-up, a
		// wider one for the call).
		return []conformanceStep{stepListTools, stepCallTool("test-tool", map[string]any{})}, true
	}
	return []conformanceStep{listOffered}, false
}

func knownScenarios() []string {
	names := make([]string, 0, len(conformanceScenarios))
	for n := range conformanceScenarios {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func stepListTools(ctx context.Context, r *conformanceRun) error {
	tools, err := r.s.ListTools(ctx)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	r.tools = tools
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	fmt.Fprintf(r.out, "tools: %s\n", strings.Join(names, ", "))
	return nil
}

// listOffered lists what the server declares (tools, resources, prompts)
// and says what it skipped: a server without tools is not a failure.
func listOffered(ctx context.Context, r *conformanceRun) error {
	caps := r.s.Capabilities()
	if caps.Tools == nil && caps.Resources == nil && caps.Prompts == nil {
		fmt.Fprintln(r.out, "the server offers no tools, resources or prompts: nothing to list")
		return nil
	}
	if caps.Tools != nil {
		if err := stepListTools(ctx, r); err != nil {
			return err
		}
	}
	if caps.Resources != nil {
		res, err := r.s.ListResources(ctx)
		if err != nil {
			return fmt.Errorf("resources/list: %w", err)
		}
		fmt.Fprintf(r.out, "resources: %d\n", len(res))
	}
	if caps.Prompts != nil {
		ps, err := r.s.ListPrompts(ctx)
		if err != nil {
			return fmt.Errorf("prompts/list: %w", err)
		}
		fmt.Fprintf(r.out, "prompts: %d\n", len(ps))
	}
	return nil
}

func stepCallTool(name string, args map[string]any, opts ...mcpengine.CallOption) conformanceStep {
	return func(ctx context.Context, r *conformanceRun) error {
		return r.call(ctx, name, args, opts...)
	}
}

// call calls a tool; a result with isError fails the step.
func (r *conformanceRun) call(ctx context.Context, name string, args map[string]any, opts ...mcpengine.CallOption) error {
	res, err := r.s.CallTool(ctx, name, args, opts...)
	if err != nil {
		return fmt.Errorf("tools/call %s: %w", name, err)
	}
	fmt.Fprintf(r.out, "%s: %s\n", name, contentText(res.Content))
	if res.IsError {
		return fmt.Errorf("tool %s reported an error", name)
	}
	return nil
}

func readEveryResource(ctx context.Context, r *conformanceRun) error {
	res, err := r.s.ListResources(ctx)
	if err != nil {
		return fmt.Errorf("resources/list: %w", err)
	}
	for _, rs := range res {
		got, err := r.s.ReadResource(ctx, rs.URI)
		if err != nil {
			return fmt.Errorf("resources/read %s: %w", rs.URI, err)
		}
		fmt.Fprintf(r.out, "read %s: %d contents\n", rs.URI, len(got.Contents))
	}
	return nil
}

func getEveryPrompt(ctx context.Context, r *conformanceRun) error {
	ps, err := r.s.ListPrompts(ctx)
	if err != nil {
		return fmt.Errorf("prompts/list: %w", err)
	}
	for _, p := range ps {
		got, err := r.s.GetPrompt(ctx, p.Name, nil)
		if err != nil {
			return fmt.Errorf("prompts/get %s: %w", p.Name, err)
		}
		fmt.Fprintf(r.out, "prompt %s: %d messages\n", p.Name, len(got.Messages))
	}
	return nil
}
