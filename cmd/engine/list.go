package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpengine/mcpengine/messages"
)

func newListCmd() *cobra.Command {
	var f targetFlags
	cmd := &cobra.Command{
		Use:   "list tools|resources|templates|prompts",
		Short: "List the server's tools, resources, resource templates or prompts",
		Long: `List what the server offers, following pagination to the end.

Text output is a table; --json prints {"tools": [...]} (or "resources",
"resourceTemplates", "prompts") with every field the server sent.`,
		Example: `  engine list tools
  engine list resources --json
  engine list prompts --stdio "uvx mcp-server-time"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("list needs what to list: tools, resources, templates or prompts")
			}
			return usagef("unknown list %q: use tools, resources, templates or prompts", args[0])
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	f.register(cmd.PersistentFlags())
	cmd.AddCommand(
		listSub("tools", "List the tools (name, arguments, description)", &f, listTools),
		listSub("resources", "List the resources (URI, name, MIME type, description)", &f, listResources),
		listSub("templates", "List the resource templates (URI template, name, description)", &f, listTemplates),
		listSub("prompts", "List the prompts (name, arguments, description)", &f, listPrompts),
	)
	return cmd
}

func listSub(what, short string, f *targetFlags, list func(*cobra.Command, *targetFlags, *client) error) *cobra.Command {
	return &cobra.Command{
		Use:   what,
		Short: short,
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := f.connect(cmd)
			if err != nil {
				return err
			}
			defer c.close()
			return list(cmd, f, c)
		},
	}
}

func listTools(cmd *cobra.Command, f *targetFlags, c *client) error {
	tools, err := c.s.ListTools(cmd.Context(), c.opts...)
	if err != nil {
		return requestError(messages.MethodToolsList, err)
	}
	w := cmd.OutOrStdout()
	if f.json {
		return printJSON(w, map[string]any{"tools": nonNil(tools)})
	}
	if len(tools) == 0 {
		fmt.Fprintln(w, "no tools")
		return nil
	}
	rows := make([][]string, 0, len(tools))
	anyRequired := false
	for _, t := range tools {
		args, required := toolArguments(t.InputSchema)
		anyRequired = anyRequired || required
		rows = append(rows, []string{t.Name, orDash(args), orDash(t.Description)})
	}
	if err := printTable(w, []string{"NAME", "ARGUMENTS", "DESCRIPTION"}, rows); err != nil {
		return err
	}
	if anyRequired {
		fmt.Fprintln(w, "(* required argument)")
	}
	return nil
}

// toolArguments summarizes a tool's inputSchema as its top-level
// properties, "name:type", required ones marked with *, in the schema's
// order of required first then the rest sorted; and whether any is
// required.
func toolArguments(schema messages.RawMessage) (string, bool) {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if len(schema) == 0 || messages.Unmarshal(schema, &s) != nil {
		return "", false
	}
	required := map[string]bool{}
	var parts []string
	describe := func(name string) string {
		typ := ""
		switch t := s.Properties[name].Type.(type) {
		case string:
			typ = ":" + t
		case []any:
			names := make([]string, 0, len(t))
			for _, x := range t {
				names = append(names, fmt.Sprint(x))
			}
			typ = ":" + strings.Join(names, "|")
		}
		if required[name] {
			return name + "*" + typ
		}
		return name + typ
	}
	for _, name := range s.Required {
		if _, ok := s.Properties[name]; ok && !required[name] {
			required[name] = true
			parts = append(parts, describe(name))
		}
	}
	rest := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		if !required[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	for _, name := range rest {
		parts = append(parts, describe(name))
	}
	return strings.Join(parts, ", "), len(required) > 0
}

func listResources(cmd *cobra.Command, f *targetFlags, c *client) error {
	res, err := c.s.ListResources(cmd.Context(), c.opts...)
	if err != nil {
		return requestError(messages.MethodResourcesList, err)
	}
	w := cmd.OutOrStdout()
	if f.json {
		return printJSON(w, map[string]any{"resources": nonNil(res)})
	}
	if len(res) == 0 {
		fmt.Fprintln(w, "no resources")
		return nil
	}
	rows := make([][]string, 0, len(res))
	for _, r := range res {
		rows = append(rows, []string{r.URI, r.Name, orDash(r.MimeType), orDash(r.Description)})
	}
	return printTable(w, []string{"URI", "NAME", "MIME TYPE", "DESCRIPTION"}, rows)
}

func listTemplates(cmd *cobra.Command, f *targetFlags, c *client) error {
	ts, err := c.s.ListResourceTemplates(cmd.Context(), c.opts...)
	if err != nil {
		return requestError(messages.MethodResourcesTemplatesList, err)
	}
	w := cmd.OutOrStdout()
	if f.json {
		return printJSON(w, map[string]any{"resourceTemplates": nonNil(ts)})
	}
	if len(ts) == 0 {
		fmt.Fprintln(w, "no resource templates")
		return nil
	}
	rows := make([][]string, 0, len(ts))
	for _, t := range ts {
		rows = append(rows, []string{t.URITemplate, t.Name, orDash(t.MimeType), orDash(t.Description)})
	}
	return printTable(w, []string{"URI TEMPLATE", "NAME", "MIME TYPE", "DESCRIPTION"}, rows)
}

func listPrompts(cmd *cobra.Command, f *targetFlags, c *client) error {
	ps, err := c.s.ListPrompts(cmd.Context(), c.opts...)
	if err != nil {
		return requestError(messages.MethodPromptsList, err)
	}
	w := cmd.OutOrStdout()
	if f.json {
		return printJSON(w, map[string]any{"prompts": nonNil(ps)})
	}
	if len(ps) == 0 {
		fmt.Fprintln(w, "no prompts")
		return nil
	}
	rows := make([][]string, 0, len(ps))
	anyRequired := false
	for _, p := range ps {
		args := make([]string, 0, len(p.Arguments))
		for _, a := range p.Arguments {
			if a.Required {
				anyRequired = true
				args = append(args, a.Name+"*")
			} else {
				args = append(args, a.Name)
			}
		}
		rows = append(rows, []string{p.Name, orDash(strings.Join(args, ", ")), orDash(p.Description)})
	}
	if err := printTable(w, []string{"NAME", "ARGUMENTS", "DESCRIPTION"}, rows); err != nil {
		return err
	}
	if anyRequired {
		fmt.Fprintln(w, "(* required argument)")
	}
	return nil
}

// nonNil makes an empty list encode as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
