// Package proctest finds the child processes of a test (Linux /proc): the
// servers an engine started as subprocesses, for tests that kill or count
// them, the members of their process groups, and unreaped children.
package proctest

import (
	"os"
	"strconv"
	"strings"
)

// Children returns the pids of the live (not zombie) direct children of
// this process whose argument vector starts with argv.
func Children(argv ...string) ([]int, error) {
	self := strconv.Itoa(os.Getpid())
	prefix := strings.Join(argv, "\x00")
	return scan(func(pid string, f statFields) bool {
		if f.ppid != self || f.state == "Z" {
			return false
		}
		cmdline, _ := os.ReadFile("/proc/" + pid + "/cmdline")
		return strings.HasPrefix(string(cmdline), prefix)
	})
}

// Group returns the pids of the live (not zombie) processes of process
// group pgid, whoever their parent is.
func Group(pgid int) ([]int, error) {
	want := strconv.Itoa(pgid)
	return scan(func(_ string, f statFields) bool { return f.state != "Z" && f.state != "X" && f.pgrp == want })
}

// Zombies returns the pids of this process's children that exited and
// were not reaped.
func Zombies() ([]int, error) {
	self := strconv.Itoa(os.Getpid())
	return scan(func(_ string, f statFields) bool { return f.state == "Z" && f.ppid == self })
}

// statFields are the fields of /proc/PID/stat after the command name.
type statFields struct{ state, ppid, pgrp string }

// scan returns the pids whose /proc/PID/stat satisfies keep.
func scan(keep func(pid string, f statFields) bool) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces, so split after ')'.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) >= 3 && keep(e.Name(), statFields{state: fields[0], ppid: fields[1], pgrp: fields[2]}) {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}
