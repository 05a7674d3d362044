package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcpengine/mcpengine/messages"
)

func newReadCmd() *cobra.Command {
	var (
		f    targetFlags
		feat clientFeatures
	)
	cmd := &cobra.Command{
		Use:   "read URI",
		Short: "Read a resource and print its contents",
		Long: `Read a resource and print its contents: text as text, binary contents
as a one-line summary (--json prints the raw result, base64 data included).

A server that asks for roots while reading gets the --root directories;
one that asks for input gets it on the terminal (when stdin is one).`,
		Example: `  engine read demo://resource/1
  engine read demo://item/42 --json`,
		Args: exactArgs(1, "the resource URI"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := f.connect(cmd)
			if err != nil {
				return err
			}
			defer c.close()
			uri := args[0]
			raw, err := c.s.Call(cmd.Context(), messages.MethodResourcesRead, &messages.ReadResourceParams{URI: uri}, c.opts...)
			if err != nil {
				if cerr := feat.capabilityError(fmt.Sprintf("reading %s", uri), err); cerr != nil {
					return cerr
				}
				return requestError(fmt.Sprintf("reading %s", uri), err)
			}
			w := cmd.OutOrStdout()
			if f.json {
				return printRawJSON(w, raw)
			}
			var res messages.ReadResourceResult
			if err := messages.Unmarshal(raw, &res); err != nil {
				return fmt.Errorf("reading %s: cannot decode the result: %w", uri, err)
			}
			if len(res.Contents) == 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "engine: %s has no contents\n", uri)
			}
			for _, rc := range res.Contents {
				printResourceContents(w, rc)
			}
			return nil
		},
	}
	f.register(cmd.Flags())
	feat.register(cmd.Flags())
	f.features = &feat
	return cmd
}
