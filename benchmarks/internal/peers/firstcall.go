package peers

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// firstCallArg makes a benchmark binary measure one client's time to its
// first call and exit (see MaybeServe).
const firstCallArg = "first-call"

// A first-call row measures what a program pays once before it can make
// its first call: creating the library (New), opening a session
// (connecting, starting a stdio server, the handshake) and that call. Each
// measurement runs in a fresh process, because the costs it is about
// (compiling codecs, building registries, warming pools) are paid once per
// process and would be free in a process that already ran another row.
// The clock starts in the child's main, after the runtime and package
// initialisation every client shares (they are one binary).

// runFirstCall measures kind's first call in a fresh child process.
func runFirstCall(ctx context.Context, sc Scenario, kind Kind) (Result, error) {
	url := ""
	if sc.HTTP {
		srv, err := StartHTTPServer(sc.Version == Modern)
		if err != nil {
			return Result{}, err
		}
		defer srv.Close()
		url = srv.URL
	}
	exe, err := os.Executable()
	if err != nil {
		return Result{}, err
	}
	args := []string{firstCallArg, kind.Name, sc.Version}
	if url != "" {
		args = append(args, url)
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return Result{}, fmt.Errorf("first-call child: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(out.String()), 10, 64)
	if err != nil {
		return Result{}, fmt.Errorf("first-call child printed %q", out.String())
	}
	return Result{Sessions: 1, FirstCall: time.Duration(ns)}, nil
}

// serveFirstCall is the child: kind named args[0] at version args[1],
// against the HTTP endpoint args[2] or else a stdio server child. It
// prints the nanoseconds from before New to the first call's answer.
func serveFirstCall(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: %s KIND VERSION [URL]", firstCallArg)
	}
	var kind *Kind
	for i := range Kinds {
		if Kinds[i].Name == args[0] {
			kind = &Kinds[i]
		}
	}
	if kind == nil {
		return fmt.Errorf("unknown client %q", args[0])
	}
	t := Target{Version: args[1]}
	if len(args) > 2 {
		t.URL = args[2]
	} else {
		st, err := StdioTarget(args[1])
		if err != nil {
			return err
		}
		t = st
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	lib := kind.New(t)
	c, err := lib.Open(ctx)
	if err == nil {
		err = c.Echo(ctx)
	}
	took := time.Since(start)
	if c != nil {
		_ = c.Close()
	}
	_ = lib.Close()
	if err != nil {
		return err
	}
	fmt.Println(took.Nanoseconds())
	return nil
}
