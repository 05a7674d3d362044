package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen/report"
)

// output is one -O FORMAT[=FILE].
type output struct {
	format string
	path   string // "" for stdout
}

type outputs []output

// parseOutputs reads the -O flags. --json is -O json. Without any output
// to stdout, the text report goes there.
func parseOutputs(specs []string, jsonFlag bool) (outputs, error) {
	var outs outputs
	if jsonFlag {
		specs = append(specs, "json")
	}
	stdout := 0
	for _, s := range specs {
		format, path, _ := strings.Cut(s, "=")
		format = strings.ToLower(strings.TrimSpace(format))
		if format == "prometheus" {
			format = "prom"
		}
		if _, ok := report.Formats[format]; !ok {
			return nil, usagef("-O %q: the formats are text, json, csv, html and prom, optionally =FILE", s)
		}
		if path == "" || path == "-" {
			path = ""
			stdout++
		}
		outs = append(outs, output{format, path})
	}
	if stdout > 1 {
		return nil, usagef("-O: only one report can go to stdout; give the others =FILE")
	}
	if stdout == 0 {
		outs = append(outs, output{format: "text"})
	}
	return outs, nil
}

func (o outputs) textOnStdout() bool {
	for _, x := range o {
		if x.path == "" {
			return x.format == "text"
		}
	}
	return false
}

// write writes every report; files are written whole or not at all.
func (o outputs) write(stdout io.Writer, r *loadgen.Result) error {
	for _, x := range o {
		write := report.Formats[x.format]
		if x.path == "" {
			bw := bufio.NewWriter(stdout)
			if err := write(bw, r); err != nil {
				return err
			}
			if err := bw.Flush(); err != nil {
				return err
			}
			continue
		}
		if err := report.WriteFile(x.path, func(w io.Writer) error { return write(w, r) }); err != nil {
			return fmt.Errorf("writing %s report: %w", x.format, err)
		}
	}
	return nil
}
