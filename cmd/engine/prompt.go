package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen/report"
	"github.com/mcpengine/mcpengine/messages"
)

func newPromptCmd() *cobra.Command {
	var (
		f    targetFlags
		kv   []string
		feat clientFeatures
	)
	cmd := &cobra.Command{
		Use:   "prompt NAME",
		Short: "Render a prompt with arguments and print its messages",
		Example: `  engine prompt greet --arg name=Ada
  engine prompt summarize -a text="a long text" -a style=brief --json`,
		Args: exactArgs(1, "the prompt name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			pargs := map[string]string{}
			for _, p := range kv {
				k, v, ok := strings.Cut(p, "=")
				if !ok || k == "" {
					return usagef("--arg %q: want key=value", p)
				}
				pargs[k] = v
			}
			c, err := f.connect(cmd)
			if err != nil {
				return err
			}
			defer c.close()
			name := args[0]
			params := &messages.GetPromptParams{Name: name}
			if len(pargs) > 0 {
				params.Arguments = pargs
			}
			raw, err := c.s.Call(cmd.Context(), messages.MethodPromptsGet, params, c.opts...)
			if err != nil {
				if cerr := feat.capabilityError(fmt.Sprintf("prompt %q", name), err); cerr != nil {
					return cerr
				}
				return requestError(fmt.Sprintf("prompt %q", name), err)
			}
			w := cmd.OutOrStdout()
			if f.json {
				return printRawJSON(w, raw)
			}
			var res messages.GetPromptResult
			if err := messages.Unmarshal(raw, &res); err != nil {
				return fmt.Errorf("prompt %q: cannot decode the result: %w", name, err)
			}
			if res.Description != "" {
				fmt.Fprintf(w, "# %s\n\n", report.OneLine(res.Description))
			}
			for i, m := range res.Messages {
				if i > 0 {
					fmt.Fprintln(w)
				}
				fmt.Fprintf(w, "[%s]\n", m.Role)
				printContent(w, []messages.ContentBlock{m.Content})
			}
			return nil
		},
	}
	f.register(cmd.Flags())
	feat.register(cmd.Flags())
	f.features = &feat
	cmd.Flags().StringArrayVarP(&kv, "arg", "a", nil, "prompt argument key=value (repeatable)")
	return cmd
}
