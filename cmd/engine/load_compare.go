package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen/report"
)

func newLoadCompareCmd() *cobra.Command {
	var (
		tolerance, errTolerance string
		checks                  []string
		asJSON                  bool
	)
	cmd := &cobra.Command{
		Use:   "compare BASE.json NEW.json",
		Short: "Compare two load reports (-O json) and fail on a regression",
		Long: `Compare two engine load JSON reports: print every figure of both with its
change, and exit 3 if a judged figure got worse by more than the tolerance.

Judged by default: calls_per_s, error_rate, p50, p90, p99 (--check to
choose; the names are those of --threshold). Latencies and throughput may
change by --tolerance (relative, default 10%); error rates may rise by
--error-tolerance (absolute, default 0.1 percentage point). Maxima and
the rest are shown but not judged: they are too noisy. Flows both runs
have are shown per flow and per step (flow:NAME p99, step:FLOW/STEP p99);
--check 'step:agent/say p99' judges one.

Exit status: 0 no regression, 1 a report could not be read, 2 usage
error, 3 regression.`,
		Example: `  engine load -n 20000 -O json=base.json
  engine load -n 20000 -O json=new.json
  engine load compare base.json new.json --tolerance 5% --check p99,calls_per_s`,
		Args: exactArgs(2, "BASE.json and NEW.json"),
		RunE: func(cmd *cobra.Command, args []string) error {
			tol, err := parsePercent(tolerance)
			if err != nil {
				return usagef("--tolerance: %v", err)
			}
			etol, err := parsePercent(errTolerance)
			if err != nil {
				return usagef("--error-tolerance: %v", err)
			}
			base, err := report.ReadJSON(args[0])
			if err != nil {
				return err
			}
			cur, err := report.ReadJSON(args[1])
			if err != nil {
				return err
			}
			var names []string
			for _, c := range checks {
				for _, n := range strings.Split(c, ",") {
					if n = strings.TrimSpace(n); n != "" {
						names = append(names, n)
					}
				}
			}
			deltas, err := loadgen.Compare(base, cur, loadgen.CompareOptions{Tolerance: tol, ErrorTolerance: etol, Checks: names})
			if err != nil {
				return usagef("--check: %v", err)
			}
			w := cmd.OutOrStdout()
			notes := loadgen.Comparable(base, cur)
			if asJSON {
				err = report.CompareJSON(w, deltas, notes)
			} else {
				report.CompareText(w, args[0], args[1], deltas, notes, tol, etol)
			}
			if err != nil {
				return err
			}
			var worse []string
			for _, d := range deltas {
				if d.Regression {
					worse = append(worse, d.Metric)
				}
			}
			if len(worse) > 0 {
				return &exitError{code: exitThreshold, msg: "regression: " + strings.Join(worse, ", ")}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&tolerance, "tolerance", "10%", "relative change allowed in latency and throughput")
	fl.StringVar(&errTolerance, "error-tolerance", "0.1%", "absolute rise allowed in error rates")
	fl.StringSliceVar(&checks, "check", nil, "metrics to judge (default calls_per_s,error_rate,p50,p90,p99)")
	fl.BoolVar(&asJSON, "json", false, "print JSON instead of text")
	return cmd
}

func parsePercent(s string) (float64, error) {
	var v float64
	if p, ok := strings.CutSuffix(strings.TrimSpace(s), "%"); ok {
		if _, err := fmt.Sscan(p, &v); err != nil || v < 0 {
			return 0, fmt.Errorf("%q is not a percentage", s)
		}
		return v / 100, nil
	}
	if _, err := fmt.Sscan(s, &v); err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a percentage (10%%) or a fraction (0.1)", s)
	}
	return v, nil
}
