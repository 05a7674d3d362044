package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes one command line and returns the process exit status:
// 0 success, 1 failure (connection, RPC error, timeout, tool isError),
// 2 usage error.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	root := newRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ex *exitError
	if errors.As(err, &ex) {
		if ex.msg != "" {
			fmt.Fprintf(stderr, "engine: %s\n", ex.msg)
		}
		return ex.code
	}
	fmt.Fprintf(stderr, "engine: %v\n", err)
	if isUsageError(err) {
		fmt.Fprintln(stderr, "Run 'engine --help' or 'engine COMMAND --help' for usage.")
		return 2
	}
	return 1
}

// exitError ends the command with a status and an optional message
// (printed as "engine: msg").
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// usageError marks a bad command line (exit status 2).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return &usageError{fmt.Errorf(format, a...)} }

func isUsageError(err error) bool {
	var u *usageError
	if errors.As(err, &u) {
		return true
	}
	// cobra's own messages for unknown commands.
	return strings.HasPrefix(err.Error(), "unknown command ")
}
