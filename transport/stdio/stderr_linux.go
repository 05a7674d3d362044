//go:build linux

package stdio

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"time"
)

// On Linux a child's stderr waits in the exit watcher's epoll instance
// beside the pidfds (exitwatch_linux.go), so that a quiet server costs no
// goroutine for it: a goroutine drains the pipe only while it holds
// something, then asks for the next readiness and exits.

// stderrDrain drains one child's stderr into its ring and line sink, a
// burst at a time.
type stderrDrain struct {
	f     *os.File
	raw   syscall.RawConn
	ring  *ring
	sink  *lineSink
	done  chan<- struct{} // closed once the pipe ended or Close drained it
	watch *procWatch

	// bursts counts the burst goroutines started; Close waits for them.
	// Add runs on the watcher goroutine under its lock, so none is added
	// once remove returned.
	bursts sync.WaitGroup

	mu    sync.Mutex // one reader at a time: a burst or Close's last drain
	ended bool       // guarded by mu: done is closed
}

// watchStderr starts draining f through the exit watcher, or returns nil
// when it cannot (f not pollable, no epoll): the caller then drains f on a
// goroutine of its own.
func watchStderr(f *os.File, r *ring, sink *lineSink, done chan<- struct{}) *stderrDrain {
	raw, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	fd := -1
	if raw.Control(func(u uintptr) { fd = int(u) }) != nil {
		return nil
	}
	d := &stderrDrain{f: f, raw: raw, ring: r, sink: sink, done: done}
	// The watcher may start a burst as soon as the pipe is registered (a
	// child that wrote to stderr at once): holding mu until d.watch is
	// set makes that burst wait for it (before, it could rearm a nil
	// watch). The order is mu, then the watcher's lock, as in burst.
	d.mu.Lock()
	d.watch, err = watcher.watchPipe(fd, d.ready)
	d.mu.Unlock()
	if err != nil {
		return nil
	}
	return d
}

// ready runs on the watcher goroutine, holding its lock, when the pipe has
// something to read or its writers are gone.
func (d *stderrDrain) ready() {
	d.bursts.Add(1)
	// Owner: d. Exits once the pipe holds nothing more (it asked for the
	// next readiness) or ended; Close waits for it (bursts).
	go d.burst()
}

func (d *stderrDrain) burst() {
	defer d.bursts.Done()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ended {
		return
	}
	if d.drainAvailable() {
		d.end()
		return
	}
	switch err := watcher.rearm(d.watch); {
	case err == nil:
		return
	case errors.Is(err, errWatchRemoved):
		return // Close is finishing: it takes what is left once this returned
	}
	// The kernel would not rearm: wait in the runtime poller until the pipe
	// ends or Close sets its deadline, as a drain goroutine of its own
	// would.
	d.drainBlocking()
	d.end()
}

// drainAvailable reads what the pipe holds, without waiting. It reports
// whether the pipe ended (EOF: every writer is gone; or an error).
func (d *stderrDrain) drainAvailable() (ended bool) {
	buf := getReadBuf()
	defer putReadBuf(buf)
	for {
		n, err, cerr := readOnce(d.raw, buf)
		switch {
		case cerr != nil:
			return true
		case err == syscall.EAGAIN:
			return false
		case err != nil, n <= 0:
			return true
		}
		d.feed(buf[:n])
	}
}

// drainBlocking reads until the pipe ends or a read deadline passes.
func (d *stderrDrain) drainBlocking() {
	poll := newPollReader(d.f)
	for {
		buf, n, err := poll.read()
		if n > 0 {
			d.feed(buf[:n])
		}
		if buf != nil {
			putReadBuf(buf)
		}
		if err != nil {
			return
		}
	}
}

func (d *stderrDrain) feed(p []byte) {
	d.ring.write(p)
	if d.sink.enabled() {
		d.sink.feed(p)
	}
}

// end flushes the line sink and closes done. Holding mu.
func (d *stderrDrain) end() {
	if d.ended {
		return
	}
	d.ended = true
	if d.sink.enabled() {
		d.sink.finish()
	}
	close(d.done)
}

// finish is Close's part, once the child is reaped: it waits up to linger
// for the pipe to end (a process outside the child's group may still hold
// it), then stops watching it, waits for the bursts under way and takes
// what the pipe still holds. The caller closes f afterwards.
func (d *stderrDrain) finish(linger time.Duration, ended <-chan struct{}) {
	if linger > 0 {
		t := time.NewTimer(linger)
		select {
		case <-ended:
		case <-t.C:
		}
		t.Stop()
	}
	watcher.remove(d.watch)
	_ = d.f.SetReadDeadline(pastDeadline) // ends a burst waiting in the poller
	d.bursts.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.ended {
		d.drainAvailable()
		d.end()
	}
}
