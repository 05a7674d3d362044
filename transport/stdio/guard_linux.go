//go:build linux

package stdio

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Every server carries markerEnv=<this process's id>.<n> in its
// environment, which its descendants inherit (unless they clear it): the
// mark by which Close tells the orphans of its server from any other
// child of this process.
const markerEnv = "MCPENGINE_SERVER"

var (
	markerPrefix = strconv.Itoa(os.Getpid()) + "." + strconv.FormatInt(time.Now().UnixNano(), 36) + "."
	markerSeq    atomic.Uint64
	subreaper    sync.Once
	subreaperOn  atomic.Bool
)

// applyGuard adds the guard to a command about to start, and returns its
// server's marker ("" when there is nothing to mark with).
func applyGuard(attr *syscall.SysProcAttr, env []string) ([]string, string) {
	g := currentGuard()
	if !g.NoParentDeathSignal {
		// The server dies with this process, even under SIGKILL.
		attr.Pdeathsig = syscall.SIGKILL
	}
	if !g.NoSubreaper {
		subreaper.Do(func() {
			subreaperOn.Store(unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil)
		})
	}
	marker := markerPrefix + strconv.FormatUint(markerSeq.Add(1), 10)
	return append(env, markerEnv+"="+marker), marker
}

// descendants returns the processes below pid, each with its start time
// (to tell it from a later process given the same pid), by walking
// /proc/<pid>/task/*/children. The walk sees processes that left the
// server's process group too. Empty once pid has exited.
func descendants(pid int) map[int]string {
	out := map[int]string{}
	queue := []int{pid}
	for len(queue) > 0 && len(out) < 4096 {
		p := queue[0]
		queue = queue[1:]
		tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(p) + "/task")
		for _, t := range tasks {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/task/" + t.Name() + "/children")
			if err != nil {
				continue
			}
			for _, f := range strings.Fields(string(b)) {
				child, err := strconv.Atoi(f)
				if err != nil {
					continue
				}
				if _, seen := out[child]; !seen {
					out[child] = startTime(child)
					queue = append(queue, child)
				}
			}
		}
	}
	return out
}

// startTime is field 22 of /proc/<pid>/stat ("" when it cannot be read).
func startTime(pid int) string {
	f := statFields(pid)
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// statFields are the fields of /proc/<pid>/stat after the command name
// (which may hold spaces): state is [0], ppid [1], starttime [19].
func statFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// killEscaped kills what is left of server, which has exited but is not
// reaped yet (so its pid still names its process group and no other): the
// descendants seen while it ran (known, with their start times) that are
// still the same processes, and, when this process is a subreaper, its
// own children that the server left behind (re-parented here when it
// died): those that carry its marker, and those of its process group
// (which identifies them also once they are zombies, whose environment
// can no longer be read). Those that are this process's children are
// reaped, so that being a subreaper leaves no zombie of the server's.
func killEscaped(server int, known map[int]string, marker string) {
	self := strconv.Itoa(os.Getpid())
	group := strconv.Itoa(server)
	victims := map[int]bool{}
	for pid, start := range known {
		if start != "" && startTime(pid) == start {
			victims[pid] = true
		}
	}
	if subreaperOn.Load() {
		for _, pid := range ownChildren() {
			if pid == server || victims[pid] {
				continue
			}
			if f := statFields(pid); (len(f) > 2 && f[2] == group) || (marker != "" && hasMarker(pid, marker)) {
				victims[pid] = true
			}
		}
	}
	delete(victims, server)
	for pid := range victims {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	for pid := range victims {
		if f := statFields(pid); len(f) > 1 && f[1] == self {
			reap(pid)
		}
	}
}

// reapWithin bounds the wait for one SIGKILLed orphan to die: a process
// in uninterruptible sleep may take longer, and Close must not wait on it
// past its bounds (it then stays a zombie here until this process exits).
const reapWithin = time.Second

// reap waits for this process's child pid, just sent SIGKILL, to exit and
// collects it, for at most reapWithin.
func reap(pid int) {
	var ws syscall.WaitStatus
	deadline := time.Now().Add(reapWithin)
	for wait := 100 * time.Microsecond; ; wait = min(2*wait, 10*time.Millisecond) {
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil || got == pid || time.Now().After(deadline):
			return
		}
		time.Sleep(wait) // a SIGKILLed process has no exit to wait on but this
	}
}

// ownChildren lists this process's children (/proc/self/task/*/children).
func ownChildren() []int {
	var pids []int
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// hasMarker reports whether process pid's environment holds marker.
func hasMarker(pid int, marker string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	want := []byte(markerEnv + "=" + marker)
	for kv := range bytes.SplitSeq(b, []byte{0}) {
		if bytes.Equal(kv, want) {
			return true
		}
	}
	return false
}
