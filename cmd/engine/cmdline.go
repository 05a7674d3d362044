package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// secretFlags carry credentials: a report that names the command line
// shows that they were given, not their values.
var secretFlags = map[string]bool{"bearer": true, "header": true}

// commandLine rebuilds the command line a run was started with from the
// flags that were set (quoted for a POSIX shell), with secrets redacted,
// for reports that say what produced them.
func commandLine(cmd *cobra.Command, args []string) string {
	parts := []string{cmd.CommandPath()}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		values := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			values = sv.GetSlice()
		}
		for _, v := range values {
			if secretFlags[f.Name] {
				v = "[redacted]"
			}
			if f.Value.Type() == "bool" {
				parts = append(parts, "--"+f.Name)
				break
			}
			parts = append(parts, "--"+f.Name, shellQuote(v))
		}
	})
	for _, a := range args {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@%+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
