package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
)

// ReadJSON reads a JSON report written by JSON, refusing another schema.
func ReadJSON(path string) (*loadgen.Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r loadgen.Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s is not an engine load JSON report: %w", path, err)
	}
	if r.Schema != loadgen.SchemaVersion {
		return nil, fmt.Errorf("%s is not an engine load JSON report (schema %q, want %q)", path, r.Schema, loadgen.SchemaVersion)
	}
	return &r, nil
}

// CompareText writes the deltas between two reports as a table, with
// each metric's verdict against the tolerances.
func CompareText(w io.Writer, basePath, newPath string, deltas []loadgen.Delta, notes []string, tol, etol float64) {
	fmt.Fprintf(w, "Base: %s\nNew:  %s\n", basePath, newPath)
	for _, n := range notes {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "METRIC\tBASE\tNEW\tCHANGE\tVERDICT")
	for _, d := range deltas {
		u := loadgen.Unit(d.Unit)
		change := "-"
		switch {
		case u == loadgen.UnitRatio:
			change = fmt.Sprintf("%+.2f pp", (d.New-d.Base)*100)
		case d.Base != 0:
			change = fmt.Sprintf("%+.1f%%", d.Change*100)
		}
		verdict := ""
		switch {
		case d.Regression:
			verdict = "REGRESSION"
		case d.Checked && d.Worse:
			verdict = "worse, within tolerance"
		case d.Checked && d.New != d.Base:
			verdict = "better"
		case d.Checked:
			verdict = "same"
		case d.Worse:
			verdict = "(worse, not judged)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.Metric, loadgen.FormatValue(u, d.Base), loadgen.FormatValue(u, d.New), change, verdict)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nTolerance: %.1f%% on latency and throughput, %.2f percentage points on error rates.\n", tol*100, etol*100)
}

// CompareJSON writes the deltas, notes and overall verdict as JSON.
func CompareJSON(w io.Writer, deltas []loadgen.Delta, notes []string) error {
	if notes == nil {
		notes = []string{}
	}
	regression := false
	for _, d := range deltas {
		regression = regression || d.Regression
	}
	b, err := json.MarshalIndent(map[string]any{"deltas": deltas, "notes": notes, "regression": regression}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
