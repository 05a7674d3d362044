// Package proctest finds the child processes of a test (Linux /proc): the
// servers an engine started as subprocesses, for tests that kill or count
// them.
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
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 || fields[1] != self || fields[0] == "Z" {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if strings.HasPrefix(string(cmdline), prefix) {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}
