//go:build linux

package faultsuite

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpengine/mcpengine"
)

// serverEnv names the scripted server a re-executed test binary runs
// instead of its tests (TestMain): the faults `engine serve` has no flag
// for are easier to write as a few lines of Go than as a shell script.
const serverEnv = "FAULTSUITE_SERVER"

// scripted is the test binary as a stdio MCP server speaking mode.
func scripted(mode string, env map[string]string) mcpengine.ServerConfig {
	// The race detector sleeps a second before a race-enabled binary
	// exits (atexit_sleep_ms), which would count as the server's slowness.
	e := map[string]string{serverEnv: mode, "GORACE": "atexit_sleep_ms=0"}
	for k, v := range env {
		e[k] = v
	}
	return mcpengine.ServerConfig{Command: selfExe, Args: []string{"-test.run=^$"}, Env: e}
}

// The scripted server's modes.
const (
	// modeTools answers initialize, ping and the tools below.
	modeTools = "tools"
	// modeCrashAfterInit answers initialize, and exits (status 3) as soon
	// as the client says it is initialized: a crash loop.
	modeCrashAfterInit = "crash-after-init"
	// modeStopReading answers initialize and never reads stdin again
	// (a server stuck in a call that never returns), staying alive.
	modeStopReading = "stop-reading"
	// modeStubborn is modeStopReading that also ignores SIGTERM: only
	// SIGKILL ends it.
	modeStubborn = "stubborn"
	// modeSilent reads everything and answers nothing, initialize
	// included.
	modeSilent = "silent"
	// modeDeafToProbe is modeTools that leaves a request before
	// initialize (the era probe, server/discover) unanswered until the
	// client says it is initialized, then refuses it: a slow server of the
	// handshake era.
	modeDeafToProbe = "deaf-to-probe"
)

// Tools of modeTools (tools/call by name):
//
//	echo {text}            the text back (the well-behaved answer)
//	both                   an answer with result and error
//	v1                     an answer with "jsonrpc":"1.0"
//	string-id              the request's id sent back as a string
//	hang                   never answered
//	trickle {text, gap_ms} the echo answer written a byte at a time
//	big {bytes}            a text of that many bytes
//	half                   half an answer (no newline), then the process exits
func serveScripted(mode string, in io.Reader, out io.Writer) int {
	r := bufio.NewReaderSize(in, 64<<10)
	w := &frameWriter{out: out}
	var probe string // modeDeafToProbe: the id of the request held
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return 0
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		id := string(m.ID)
		switch {
		case mode == modeSilent:
		case mode == modeDeafToProbe && m.Method == "server/discover":
			probe = id
		case mode == modeDeafToProbe && m.Method == "notifications/initialized" && probe != "":
			w.write(`{"jsonrpc":"2.0","id":` + probe + `,"error":{"code":-32601,"message":"no such method"}}`)
		case m.Method == "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(m.Params, &p)
			w.write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"` + p.ProtocolVersion +
				`","capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"1"}}}`)
		case m.Method == "notifications/initialized" && mode == modeCrashAfterInit:
			return 3
		case m.Method == "notifications/initialized" && mode == modeStubborn:
			signal.Ignore(syscall.SIGTERM)
			time.Sleep(time.Hour) // the fault: deaf, and SIGTERM does nothing
			return 0
		case m.Method == "notifications/initialized" && mode == modeStopReading:
			time.Sleep(time.Hour) // the fault: stdin fills up; SIGTERM ends it
			return 0
		case id == "":
			// Other notifications (cancelled) need nothing.
		case m.Method == "ping":
			w.write(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`)
		case m.Method == "tools/call":
			// Owner: this server process; exits once the answer is
			// written (at once for hang, which writes none).
			go callTool(id, m.Params, w)
		default:
			w.write(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"no such method"}}`)
		}
	}
}

// frameWriter writes one frame at a time.
type frameWriter struct {
	mu  sync.Mutex
	out io.Writer
}

func (w *frameWriter) write(frame string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = io.WriteString(w.out, frame+"\n")
}

// trickle writes frame a byte per write(2), gap apart, holding the
// output meanwhile as a real server writing one frame would.
func (w *frameWriter) trickle(frame string, gap time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	frame += "\n"
	for i := 0; i < len(frame); i++ {
		if _, err := w.out.Write([]byte{frame[i]}); err != nil {
			return
		}
		time.Sleep(gap) // the fault itself: a server that trickles
	}
}

func callTool(id string, params json.RawMessage, w *frameWriter) {
	var p struct {
		Name string `json:"name"`
		Args struct {
			Text  string `json:"text"`
			GapMS int    `json:"gap_ms"`
			Bytes int    `json:"bytes"`
		} `json:"arguments"`
	}
	_ = json.Unmarshal(params, &p)
	text := func(s string) string {
		b, _ := json.Marshal(s)
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":` + string(b) + `}]}}`
	}
	switch p.Name {
	case "echo":
		w.write(text(p.Args.Text))
	case "both":
		w.write(`{"jsonrpc":"2.0","id":` + id + `,"result":{},"error":{"code":1,"message":"both"}}`)
	case "v1":
		w.write(`{"jsonrpc":"1.0","id":` + id + `,"result":{}}`)
	case "string-id":
		w.write(`{"jsonrpc":"2.0","id":"` + id + `","result":{}}`)
	case "hang":
	case "trickle":
		w.trickle(text(p.Args.Text), time.Duration(p.Args.GapMS)*time.Millisecond)
	case "half":
		frame := text("cut short")
		w.mu.Lock() // no frame after this one: the process exits holding it
		_, _ = io.WriteString(w.out, frame[:len(frame)/2])
		os.Exit(3)
	case "big":
		w.write(text(strings.Repeat("x", p.Args.Bytes)))
	default:
		w.write(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32602,"message":"unknown tool"}}`)
	}
}
