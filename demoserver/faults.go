package demoserver

import (
	"errors"
	"io"
	"sync/atomic"
)

// ErrExitRequested is returned by Serve when Options.ExitAfter requests were
// served and the next one arrived: the server stops as if its process died
// (the CLI exits). The request that tripped it is not answered.
var ErrExitRequested = errors.New("demoserver: exit requested by the ExitAfter fault")

// ErrCloseRequested is returned by Serve when Options.CloseAfter requests
// were served and the next one arrived: Serve closed the connection without
// answering it. ServeStdio then keeps the process alive (stdout at EOF)
// until its context ends, like a server that hung up but did not exit.
var ErrCloseRequested = errors.New("demoserver: connection closed by the CloseAfter fault")

// Garbage lines written by the GarbageEvery fault, alternately: one that is
// not JSON and one that is not even UTF-8. Neither contains a newline.
const (
	garbageNotJSON     = "this is not JSON {{{ garbage"
	garbageInvalidUTF8 = "\xff\xfe\xfd\xc3\x28 garbage \xe2\x82"
)

// faultState is the per-connection state of the response faults. Its
// methods are called with the writer's mutex held.
type faultState struct {
	every     int
	responses int
	garbage   *atomic.Int64 // Server stats counter
}

// garbageBeforeResponse counts one response and returns the garbage frame
// to write before it, or nil.
func (f *faultState) garbageBeforeResponse() []byte {
	if f.every <= 0 {
		return nil
	}
	f.responses++
	if f.responses%f.every != 0 {
		return nil
	}
	f.garbage.Add(1)
	if (f.responses/f.every)%2 == 1 {
		return []byte(garbageNotJSON)
	}
	return []byte(garbageInvalidUTF8)
}

// spam writes n bytes of stderr noise (one line per 100 bytes or so). A
// writer that blocks (an undrained pipe) blocks the reader, exactly like a
// real server whose stderr nobody reads.
func spam(w io.Writer, n int) {
	if w == nil || n <= 0 {
		return
	}
	const line = "demoserver: stderr noise ................................................................................\n"
	for n > 0 {
		k := min(n, len(line))
		chunk := line[len(line)-k:]
		if _, err := io.WriteString(w, chunk); err != nil {
			return
		}
		n -= k
	}
}
