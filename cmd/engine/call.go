package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

func newCallCmd() *cobra.Command {
	var (
		f        targetFlags
		argsJSON string
		kv       []string
		progress bool
		feat     clientFeatures
	)
	cmd := &cobra.Command{
		Use:   "call TOOL",
		Short: "Call a tool and print its result",
		Long: `Call a tool with arguments and print its result.

Arguments are a JSON object (--args) and/or key=value pairs (--arg, which
win over --args); a value that is valid JSON (5, true, [1,2], {"a":1},
"quoted") is sent as that JSON, anything else as a string.

Text content is printed as text. A result with isError: true is a failure:
its text goes to stderr and the exit status is 1. --json prints the raw
result as the server sent it (exit status 1 still applies).

A tool may ask this client for something while it runs. Roots (the
directories the server may work in) are the --root directories.
Elicitation (the server asks you for input) is answered on the terminal,
field by field, when stdin is one (raise --timeout to take your time).
Sampling (an LLM completion) the CLI cannot answer; it says so.`,
		Example: `  engine call echo --args '{"text":"hi"}'
  engine call add --arg a=1 --arg b=2
  engine call progress --arg steps=5 --progress
  engine call fail --json
  engine call roots --root . --root /tmp`,
		Args: exactArgs(1, "the tool name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			toolArgs, err := buildToolArgs(argsJSON, kv)
			if err != nil {
				return err
			}
			c, err := f.connect(cmd)
			if err != nil {
				return err
			}
			defer c.close()
			return callTool(cmd, &f, c, args[0], toolArgs, progress)
		},
	}
	f.register(cmd.Flags())
	feat.register(cmd.Flags())
	f.features = &feat
	cmd.Flags().StringVar(&argsJSON, "args", "", `tool arguments as a JSON object, e.g. '{"text":"hi"}'`)
	cmd.Flags().StringArrayVarP(&kv, "arg", "a", nil, "tool argument key=value (repeatable)")
	cmd.Flags().BoolVar(&progress, "progress", false, "ask for progress notifications and print them to stderr")
	return cmd
}

// buildToolArgs merges --args and --arg into one JSON object (nil if
// neither was given).
func buildToolArgs(argsJSON string, kv []string) (messages.RawMessage, error) {
	if argsJSON == "" && len(kv) == 0 {
		return nil, nil
	}
	obj := map[string]json.RawMessage{}
	if argsJSON != "" {
		if err := json.Unmarshal([]byte(argsJSON), &obj); err != nil || obj == nil {
			return nil, usagef("--args must be a JSON object, e.g. '{\"text\":\"hi\"}'")
		}
	}
	for _, p := range kv {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, usagef("--arg %q: want key=value", p)
		}
		if json.Valid([]byte(v)) {
			obj[k] = json.RawMessage(v)
		} else {
			s, _ := json.Marshal(v)
			obj[k] = s
		}
	}
	return json.Marshal(obj)
}

func callTool(cmd *cobra.Command, f *targetFlags, c *client, name string, args messages.RawMessage, progress bool) error {
	opts := c.opts
	if progress {
		stderr := cmd.ErrOrStderr()
		opts = append(opts, mcpengine.WithProgress(func(p messages.ProgressParams) {
			total := ""
			if p.Total != nil {
				total = fmt.Sprintf("/%g", *p.Total)
			}
			msg := ""
			if p.Message != "" {
				msg = ": " + p.Message
			}
			fmt.Fprintf(stderr, "progress %g%s%s\n", p.Progress, total, msg)
		}))
	}
	params := &messages.CallToolParams{Name: name}
	if args != nil {
		params.Arguments = args
	}
	raw, err := callToolRaw(cmd, c, params, opts)
	if err != nil {
		if cerr := f.features.capabilityError(fmt.Sprintf("tool %q", name), err); cerr != nil {
			return cerr
		}
		return requestError(fmt.Sprintf("tool %q", name), err)
	}
	var res messages.CallToolResult
	if err := messages.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("tool %q: cannot decode the result: %w", name, err)
	}

	w := cmd.OutOrStdout()
	if f.json {
		if err := printRawJSON(w, raw); err != nil {
			return err
		}
	} else if !res.IsError {
		printContent(w, res.Content)
		if len(res.Content) == 0 && len(res.StructuredContent) > 0 {
			if err := printRawJSON(w, res.StructuredContent); err != nil {
				return err
			}
		}
	}
	if res.IsError {
		msg := contentText(res.Content)
		if msg == "" {
			msg = "(no message)"
		}
		if hint := serverRequestHint(msg, f.features.isInteractive()); hint != "" {
			msg += "; " + hint
		}
		return &exitError{code: 1, msg: fmt.Sprintf("tool %q returned an error (isError): %s", name, msg)}
	}
	return nil
}

// callToolRaw makes the call and returns the result's JSON. On a server
// that runs tool calls as tasks (2025-11-25), Session.CallTool makes it:
// a tool whose execution.taskSupport is "required" refuses a plain call,
// and CallTool then runs it as a task and waits for its result. Other
// servers get the plain call, whose result --json prints as sent.
func callToolRaw(cmd *cobra.Command, c *client, params *messages.CallToolParams, opts []mcpengine.CallOption) (messages.RawMessage, error) {
	if !c.s.Capabilities().Tasks.ToolCallsAsTasks() {
		return c.s.Call(cmd.Context(), messages.MethodToolsCall, params, opts...)
	}
	res, err := c.s.CallTool(cmd.Context(), params.Name, params.Arguments, opts...)
	if err != nil {
		return nil, err
	}
	return messages.Marshal(res)
}
