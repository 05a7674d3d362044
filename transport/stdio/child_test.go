//go:build linux

package stdio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// runChild runs the child behaviour named by mode and returns its exit code.
func runChild(mode string) int {
	out := &lockedWriter{w: bufio.NewWriter(os.Stdout)}
	switch mode {
	case "echo":
		echo(out)
	case "env":
		b, _ := json.Marshal(os.Environ())
		out.line(string(b))
		_, _ = io.Copy(io.Discard, os.Stdin)
	case "cwd":
		wd, _ := os.Getwd()
		out.line(wd)
		_, _ = io.Copy(io.Discard, os.Stdin)
	case "bigline":
		n := childBytes()
		chunk := bytes.Repeat([]byte{'x'}, 64<<10)
		for n > 0 {
			k := min(n, len(chunk))
			if _, err := os.Stdout.Write(chunk[:k]); err != nil {
				return 1
			}
			n -= k
		}
		_, _ = os.Stdout.Write([]byte("\n"))
		out.line("after")
		_, _ = io.Copy(io.Discard, os.Stdin)
	case "stderr-echo":
		// Copies each stdin line to stderr, and answers "ok" on stdout.
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			fmt.Fprintln(os.Stderr, in.Text())
			out.line("ok")
		}
	case "stderr-flood":
		// Floods stderr while echoing stdin; reports "flood-done" on stdout.
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // owner: this child process; exits after the flood
			defer wg.Done()
			flood(childBytes())
			out.line("flood-done")
		}()
		echo(out)
		wg.Wait()
	case "ignore-stdin":
		// Never reads stdin, so it never sees EOF; dies on SIGTERM.
		out.line("ready")
		time.Sleep(time.Hour)
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
		out.line("ready")
		time.Sleep(time.Hour)
	case "sleep":
		time.Sleep(time.Hour)
	case "grandchild":
		// Spawns this binary in "sleep" mode in the same process group, holding
		// stderr, and reports its pid.
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), childModeEnv+"=sleep")
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		out.line(strconv.Itoa(cmd.Process.Pid))
		if os.Getenv(childAfterEnv) == "ignore-stdin" {
			time.Sleep(time.Hour)
		}
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0 // leaves the grandchild running
	case "exit3":
		fmt.Fprintln(os.Stderr, "fatal: boom")
		return 3
	default:
		fmt.Fprintf(os.Stderr, "unknown child mode %q\n", mode)
		return 2
	}
	return 0
}

func childBytes() int {
	n, _ := strconv.Atoi(os.Getenv(childBytesEnv))
	return n
}

// echo copies stdin lines to stdout until EOF, flushing whenever no more
// input is buffered.
func echo(out *lockedWriter) {
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			out.write(line, in.Buffered() == 0)
		}
		if err != nil {
			return
		}
	}
}

// flood writes n bytes of 1000-byte lines to stderr, one 10 KiB line without
// break in the middle, and ends with "TAIL-MARKER\n".
func flood(n int) {
	w := bufio.NewWriterSize(os.Stderr, 64<<10)
	line := append(bytes.Repeat([]byte{'e'}, 999), '\n')
	for i := 0; n > 0; i++ {
		if i == 100 {
			_, _ = w.Write(bytes.Repeat([]byte{'L'}, 10<<10))
			_, _ = w.Write([]byte("\n"))
		}
		k := min(n, len(line))
		_, _ = w.Write(line[:k])
		n -= k
	}
	_, _ = w.WriteString("\nTAIL-MARKER\n")
	_ = w.Flush()
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (l *lockedWriter) write(b []byte, flush bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(b)
	if flush {
		_ = l.w.Flush()
	}
}

func (l *lockedWriter) line(s string) {
	l.write([]byte(strings.TrimSuffix(s, "\n")+"\n"), true)
}
