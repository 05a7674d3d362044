//go:build linux

package stdio

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// The exit of every server process is watched through a pidfd (Linux 5.3+),
// so that a server that dies is noticed even when a process it started
// still holds its stdout open (a wrapper's background child, an npx or uvx
// helper): end of file on stdout alone would never come.
//
// The pidfds of all connections sit in one epoll instance, which one
// goroutine for the whole process waits on, parked in the runtime poller
// like any pipe read: a connection costs a file descriptor and a map entry,
// no goroutine and no thread. The children's stderr pipes wait there too
// (stderr_linux.go). The goroutine starts with the first watched
// connection and ends when the last one is closed.

// sysPidfdOpen is pidfd_open(2), numbered alike on every Linux architecture.
const sysPidfdOpen = 434

// watcher is the process-wide exit watcher.
var watcher exitWatcher

type exitWatcher struct {
	mu     sync.Mutex
	gen    *watchGen // the running watcher; nil when nothing is watched
	nextID uint64
}

// watchGen is one run of the watcher goroutine with its epoll instance.
// Its fields are guarded by exitWatcher.mu, except epfd, raw and done.
type watchGen struct {
	epfd    *os.File // the epoll instance, non-blocking, in the runtime poller
	raw     syscall.RawConn
	watches map[uint64]*procWatch // every watch not yet removed, fired or not
	stop    bool                  // set with the last removal; the goroutine then returns
	done    chan struct{}         // closed when the goroutine has returned
}

// procWatch is one watched descriptor: a process's pidfd, or a child's
// stderr pipe (stderr_linux.go).
type procWatch struct {
	pidfd int // the watched descriptor
	id    uint64
	gen   *watchGen
	// onExit runs on the watcher goroutine, holding exitWatcher.mu, when
	// the descriptor becomes ready: once for a pidfd; for a pipe at every
	// readiness that rearm asked for.
	onExit func()
	repeat bool // a pipe: onExit stays, and the watch closes no descriptor
}

// watch starts watching the process pid (a child not yet reaped, so that the
// pid cannot name another process) and runs onExit once it has exited.
// onExit runs on the watcher goroutine with the watcher's lock held: it must
// be short and must not call watch or remove. It fails when the kernel has
// no pidfd_open (before 5.3) or a sandbox forbids it; the caller then goes
// without.
func (w *exitWatcher) watch(pid int, onExit func()) (*procWatch, error) {
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0) // O_CLOEXEC always
	if errno != 0 {
		return nil, errno
	}
	x, err := w.add(&procWatch{pidfd: int(fd), onExit: onExit})
	if err != nil {
		_ = syscall.Close(int(fd))
	}
	return x, err
}

// watchPipe runs onReady, on the watcher goroutine with the watcher's lock
// held, when the pipe fd (which the caller keeps open until remove
// returns) has something to read or was closed by its writers; after
// that, only once rearm is called again. onReady must be short, like
// watch's onExit.
func (w *exitWatcher) watchPipe(fd int, onReady func()) (*procWatch, error) {
	return w.add(&procWatch{pidfd: fd, onExit: onReady, repeat: true})
}

// add puts x into the epoll instance, starting the watcher if none runs.
func (w *exitWatcher) add(x *procWatch) (*procWatch, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gen == nil {
		g, err := newWatchGen()
		if err != nil {
			return nil, err
		}
		w.gen = g
		// Owner: the exit watcher. Exits once the last watch is removed:
		// remove sets stop, wakes it, and waits for done.
		go g.run(&w.mu)
	}
	w.nextID++
	x.id, x.gen = w.nextID, w.gen
	ev := x.event()
	if err := syscall.EpollCtl(x.gen.epfdNum(), syscall.EPOLL_CTL_ADD, x.pidfd, &ev); err != nil {
		if len(w.gen.watches) == 0 {
			w.stopLocked() // nothing else to watch: let this run end
		}
		return nil, err
	}
	x.gen.watches[x.id] = x
	return x, nil
}

// event is x's one-shot readiness event. The id, not the fd number, names
// the watch in events: a descriptor closed and its number reused while an
// event was on its way must not fire the newcomer.
func (x *procWatch) event() syscall.EpollEvent {
	return syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLONESHOT,
		Fd: int32(uint32(x.id)), Pad: int32(uint32(x.id >> 32))}
}

// errWatchRemoved: rearm of a watch that remove took away meanwhile (its
// descriptor may be closed by now, and its number another's).
var errWatchRemoved = errors.New("stdio: watch removed")

// rearm asks for x's next readiness (a pipe watch whose onReady ran).
func (w *exitWatcher) rearm(x *procWatch) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if x.gen.watches[x.id] != x {
		return errWatchRemoved
	}
	ev := x.event()
	return syscall.EpollCtl(x.gen.epfdNum(), syscall.EPOLL_CTL_MOD, x.pidfd, &ev)
}

// remove stops watching x and closes its pidfd (a pipe stays open); onExit
// has run or will never run once remove returns. When x was the last
// watch, remove returns once the watcher goroutine has ended.
func (w *exitWatcher) remove(x *procWatch) {
	w.mu.Lock()
	g := x.gen
	delete(g.watches, x.id)
	_ = syscall.EpollCtl(g.epfdNum(), syscall.EPOLL_CTL_DEL, x.pidfd, nil)
	if !x.repeat {
		_ = syscall.Close(x.pidfd)
	}
	last := len(g.watches) == 0 && w.gen == g
	if last {
		w.stopLocked()
	}
	w.mu.Unlock()
	if last {
		<-g.done
	}
}

// stopLocked ends the current run: the goroutine sees stop once woken by
// the read deadline, closes the epoll instance and returns. The next watch
// starts a new run.
func (w *exitWatcher) stopLocked() {
	g := w.gen
	w.gen = nil
	g.stop = true
	_ = g.epfd.SetReadDeadline(pastDeadline) // cannot fail: newWatchGen checked
}

func newWatchGen() (*watchGen, error) {
	fd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		_ = syscall.Close(fd)
		return nil, err
	}
	// Non-blocking, so os.NewFile puts it in the runtime poller: the
	// goroutine waits for it like for a pipe, holding no thread.
	f := os.NewFile(uintptr(fd), "pidfd-epoll")
	raw, err := f.SyscallConn()
	if err == nil {
		// Deadlines work only in the poller, and stop needs one to wake
		// the goroutine.
		err = f.SetReadDeadline(time.Time{})
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return &watchGen{epfd: f, raw: raw, watches: make(map[uint64]*procWatch), done: make(chan struct{})}, nil
}

// epfdNum is the epoll instance's descriptor, valid while the run lasts
// (the goroutine closes it only after stop, under the lock).
func (g *watchGen) epfdNum() int {
	fd := -1
	_ = g.raw.Control(func(u uintptr) { fd = int(u) })
	return fd
}

// run is the watcher goroutine: it waits in the runtime poller until a
// watched process exits (its pidfd becomes readable) and runs its onExit.
func (g *watchGen) run(mu *sync.Mutex) {
	defer close(g.done)
	events := make([]syscall.EpollEvent, 64)
	var n int
	ready := func(fd uintptr) bool {
		for {
			var err error
			n, err = syscall.EpollWait(int(fd), events, 0)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if err != nil {
				n = 0
			}
			return n > 0 // false: park in the poller until an event comes
		}
	}
	for {
		werr := g.raw.Read(ready)
		mu.Lock()
		if g.stop {
			mu.Unlock()
			_ = g.epfd.Close()
			return
		}
		if werr != nil {
			// Only stop sets a deadline, so this is unexpected; lift any
			// deadline and wait again rather than spin.
			_ = g.epfd.SetReadDeadline(time.Time{})
			n = 0
		}
		for _, ev := range events[:n] {
			id := uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32
			if x := g.watches[id]; x != nil && x.onExit != nil {
				// EPOLLONESHOT disabled it; rearm enables a pipe's again,
				// remove deletes it from the set.
				fn := x.onExit
				if !x.repeat {
					x.onExit = nil
				}
				fn()
			}
		}
		mu.Unlock()
	}
}

// exitStatus reads how the exited, not yet reaped, process pid ended,
// without reaping it (waitid with WNOWAIT). ok is false when it cannot
// tell.
func exitStatus(pid int) (code int, sig syscall.Signal, ok bool) {
	var info [128]byte // siginfo_t
	_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
		uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOWAIT|syscall.WNOHANG, 0, 0)
	if e != 0 {
		return -1, 0, false
	}
	// siginfo_t for SIGCHLD: si_signo, si_errno, si_code (int32 each), a
	// pad to 16, then si_pid, si_uid, si_status.
	siCode := *(*int32)(unsafe.Pointer(&info[8]))
	siPid := *(*int32)(unsafe.Pointer(&info[16]))
	status := int(*(*int32)(unsafe.Pointer(&info[24])))
	if int(siPid) != pid {
		return -1, 0, false // WNOHANG and not exited after all
	}
	const cldExited, cldKilled, cldDumped = 1, 2, 3
	switch siCode {
	case cldExited:
		return status, 0, true
	case cldKilled, cldDumped:
		return -1, syscall.Signal(status), true
	}
	return -1, 0, false
}

// watchExit watches the child's exit: when it exits, everything it wrote to
// stdout can still be read, then ReadFrame reports *ProcessExitedError, and
// its process group is killed (see processExited). Without pidfd support
// the connection goes without, as before: only end of file on stdout ends
// it.
func (c *Conn) watchExit() {
	x, err := watcher.watch(c.proc.Pid, c.processExited)
	if err != nil {
		return
	}
	c.exit = x
}

// unwatchExit is the first thing Close does: from then on processExited
// has run or never will, so Close owns the stdout file and the pid alone.
func (c *Conn) unwatchExit() {
	if c.exit != nil {
		watcher.remove(c.exit)
	}
}

// processExited runs on the watcher goroutine when the child has exited
// (not reaped: its pid still names it and its group). It records how,
// kills what is left of the process group (background children of a
// wrapper hold stdout and would live on), and wakes a ReadFrame waiting in
// the poller; from then on reads take what the pipe holds without waiting,
// and end with *ProcessExitedError.
func (c *Conn) processExited() {
	e := &ProcessExitedError{Pid: c.proc.Pid, Code: -1}
	if code, sig, ok := exitStatus(c.proc.Pid); ok {
		e.Code, e.Signal = code, sig
	}
	c.exitErr = e
	c.dead.Store(true) // publishes exitErr
	_ = signalGroup(c.proc, syscall.SIGKILL)
	_ = c.stdout.SetReadDeadline(pastDeadline)
}

// awaitStderrAfterExit waits, at most eofExitWait, for the stderr drain
// to reach the end once the child has exited: its last lines (the ones
// that say why it died) are written just before it exits, and the
// failure is often seen before the drain read them. A process the child
// left behind may hold stderr open; the wait is bounded for it.
func (c *Conn) awaitStderrAfterExit() {
	if !c.dead.Load() {
		if _, _, exited := exitStatus(c.proc.Pid); !exited {
			return
		}
	}
	t := time.NewTimer(eofExitWait)
	defer t.Stop()
	select {
	case <-c.drained:
	case <-t.C:
	}
}

// eofExitWait bounds how long a read that met the end of stdout waits for
// the child's exit status (exitedAfterEOF).
const eofExitWait = 100 * time.Millisecond

// exitedAfterEOF is for a read that met the end of stdout before the exit
// watcher saw the child exit. A process that exits closes its descriptors
// before it becomes a zombie, so its stdout ends a moment before its
// status can be read: the read waits for it a little (doubling from 1 ms,
// at most eofExitWait in all), since "exited with code 1" tells the user
// far more than "EOF". nil when the child is still running after that (it
// closed stdout and lives on) or is not watched.
func (c *Conn) exitedAfterEOF() *ProcessExitedError {
	if c.exit == nil {
		return nil
	}
	var waited time.Duration
	for wait := time.Millisecond; ; wait *= 2 {
		if code, sig, ok := exitStatus(c.proc.Pid); ok {
			return &ProcessExitedError{Pid: c.proc.Pid, Code: code, Signal: sig}
		}
		if waited >= eofExitWait {
			return nil
		}
		time.Sleep(wait)
		waited += wait
	}
}
