// Command firstcalltrace breaks mcpengine's time to first call (the
// first-call rows of peercompare) into its phases: New, Connect and the
// first CallTool, each in a fresh child process, and can write a CPU
// profile or an execution trace of one child.
//
//	go run ./cmd/firstcalltrace -n 20                 # phase medians, HTTP
//	go run ./cmd/firstcalltrace -n 20 -stdio          # the same over stdio
//	go run ./cmd/firstcalltrace -n 20 -version ''      # unpinned: the era probe first
//	go run ./cmd/firstcalltrace -n 50 -cpuprofile p   # p.0 … p.49 at 4 kHz
//	FCT_WARM=1 go run ./cmd/firstcalltrace -n 20      # sonic warmed before the clock
//
// The clock starts in the child's main, as in peercompare's first-call
// rows; each phase is one child's wall time, the figures medians and
// minima over the children.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/benchmarks/internal/peers"
	"github.com/mcpengine/mcpengine/messages"
)

const childArg = "firstcalltrace-child"

func main() {
	peers.MaybeServe()
	if len(os.Args) > 1 && os.Args[1] == childArg {
		if err := child(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	n := flag.Int("n", 20, "fresh child processes")
	stdio := flag.Bool("stdio", false, "a stdio server instead of HTTP")
	cpu := flag.String("cpuprofile", "", "write each child's CPU profile to this prefix plus .i")
	tr := flag.String("trace", "", "write the first child's execution trace here")
	version := flag.String("version", "2025-11-25", "Config.ProtocolVersion (empty: negotiated)")
	flag.Parse()

	url := ""
	if !*stdio {
		srv, err := peers.StartHTTPServer(false)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer srv.Close()
		url = srv.URL
	}
	exe, _ := os.Executable()
	var phases [4][]time.Duration
	for i := range *n {
		prof, trc := "", ""
		if *cpu != "" {
			prof = *cpu + "." + strconv.Itoa(i)
		}
		if *tr != "" && i == 0 {
			trc = *tr
		}
		out, err := exec.Command(exe, childArg, url, prof, trc, *version).Output()
		if err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		f := strings.Fields(string(out))
		for j := range phases {
			ns, _ := strconv.ParseInt(f[j], 10, 64)
			phases[j] = append(phases[j], time.Duration(ns))
		}
	}
	for j, name := range []string{"New", "Connect", "CallTool", "total"} {
		slices.Sort(phases[j])
		fmt.Printf("%-9s median %8v  min %8v\n", name, phases[j][len(phases[j])/2].Round(10*time.Microsecond), phases[j][0].Round(10*time.Microsecond))
	}
}

// child times New, Connect and the first CallTool, printing nanoseconds.
func child(args []string) error {
	url, prof, trc, version := args[0], args[1], args[2], args[3]
	if prof != "" {
		runtime.SetCPUProfileRate(4000)
		f, err := os.Create(prof)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if trc != "" {
		f, err := os.Create(trc)
		if err != nil {
			return err
		}
		if err := trace.Start(f); err != nil {
			return err
		}
		defer trace.Stop()
	}
	sc := mcpengine.SessionConfig{Name: "first", Server: mcpengine.ServerConfig{URL: url, Type: "streamable-http"}}
	if url == "" {
		t, err := peers.StdioTarget("2025-11-25")
		if err != nil {
			return err
		}
		sc.Server = mcpengine.ServerConfig{Command: t.Command, Args: t.Args}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if os.Getenv("FCT_WARM") != "" {
		// What the first call pays for sonic: warm it before the clock.
		_, _ = messages.Marshal(map[string]any{"text": "x"})
	}
	t0 := time.Now()
	eng := mcpengine.New(mcpengine.Config{ProtocolVersion: version})
	t1 := time.Now()
	s, err := eng.Connect(ctx, sc)
	if err != nil {
		return err
	}
	t2 := time.Now()
	res, err := s.CallTool(ctx, "echo", map[string]any{"text": peers.EchoText})
	if err != nil {
		return err
	}
	t3 := time.Now()
	if res.IsError {
		return fmt.Errorf("echo failed")
	}
	fmt.Println(t1.Sub(t0).Nanoseconds(), t2.Sub(t1).Nanoseconds(), t3.Sub(t2).Nanoseconds(), t3.Sub(t0).Nanoseconds())
	_ = eng.Close(ctx)
	return nil
}
