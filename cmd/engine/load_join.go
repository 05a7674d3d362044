package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen/distributed"
)

// coordinatorOnly are engine load's flags that concern the coordinator
// alone: they are not sent to the members.
var coordinatorOnly = map[string]bool{
	"join": true, "listen": true, "output": true, "quiet": true, "json": true, "prometheus": true,
	"otel": true, "otel-record-arguments": true, "verbose": true,
}

// memberArgs are the coordinator's engine load flags a member builds its
// share from: every flag given, except the coordinator's own.
func memberArgs(fs *pflag.FlagSet) []string {
	var args []string
	fs.Visit(func(fl *pflag.Flag) {
		if coordinatorOnly[fl.Name] {
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+fl.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+fl.Name+"="+fl.Value.String())
	})
	return args
}

// loadMemberConfig is a member's distributed.BuildFunc: the
// coordinator's flags parsed as engine load parses its own, so the member
// runs the same load (target, workload, timeouts) as one host would.
// Files the flags name (--scenario, --data, --config) are read here, on
// the member.
func loadMemberConfig(stderr io.Writer) distributed.BuildFunc {
	return func(args []string) (*loadgen.Config, error) {
		var (
			f  targetFlags
			lf loadFlags
		)
		cmd := loadCommand(&f, &lf)
		cmd.SetErr(stderr)
		if err := cmd.ParseFlags(args); err != nil {
			return nil, fmt.Errorf("the coordinator's flags: %w", err)
		}
		cfg, _, _, _, err := buildLoad(cmd, &f, &lf)
		if err != nil {
			return nil, err
		}
		cfg.Engine = f.engineConfig(stderr)
		return cfg, nil
	}
}

// runLoadJoined runs the load as the coordinator of a distributed run:
// the members of the cluster at lf.join that run load workers make the
// calls; this process merges their reports.
func runLoadJoined(cmd *cobra.Command, f *targetFlags, lf *loadFlags, cfg *loadgen.Config, outs outputs, checks []*loadgen.Threshold) error {
	stderr := cmd.ErrOrStderr()
	var log *slog.Logger
	if f.verbose {
		log = workerLogger(stderr)
	}
	cl, err := joinLoadCluster(cmd.Context(), lf.join, lf.listen, log)
	if err != nil {
		return err
	}
	defer cl.stop()
	members, err := cl.loadMembers(cmd.Context(), stderr)
	if err != nil {
		return err
	}
	if !lf.quiet && outs.textOnStdout() {
		fmt.Fprintf(stderr, "load: %s against %s, %s, shared by %d members ...\n", describeLoad(cfg), cfg.Label, runLimit(cfg), len(members))
	}
	var prog *progressPrinter
	if !lf.quiet {
		prog = newProgressPrinter(stderr)
		cfg.Progress = prog.update
	}
	res, err := distributed.Run(cmd.Context(), distributed.Options{
		System: cl.system(), Members: members, Config: cfg, Args: memberArgs(cmd.Flags()), Left: cl.left(),
	})
	if prog != nil {
		prog.done()
	}
	if errors.Is(err, distributed.ErrSplit) {
		return &usageError{err}
	}
	if err != nil {
		return err
	}
	return finishLoad(cmd, res, outs, checks)
}
