//go:build linux

package loadgen

import (
	"bytes"
	"os"
	"strconv"
)

// Linux reports process times in clock ticks of USER_HZ, which is 100 on
// every architecture Go supports (the kernel fixes it for the ABI).
const clockTicks = 100

var pageSize = int64(os.Getpagesize())

// procStat is what one /proc/PID/stat line says.
type procStat struct {
	pid, ppid int
	// cpu is user+system time in seconds, children counts the reaped
	// children's (cutime+cstime).
	cpu, children float64
	rss           int64 // bytes
}

func readStat(path string) (procStat, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return procStat{}, false
	}
	// The command name is in parentheses and may hold spaces or ")":
	// fields are counted from the last ")".
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	pid, _ := strconv.Atoi(string(bytes.TrimSpace(b[:bytes.IndexByte(b, '(')])))
	f := bytes.Fields(b[i+1:])
	// f[0] is field 3 (state); field N is f[N-3].
	if len(f) < 22 {
		return procStat{}, false
	}
	num := func(n int) float64 {
		v, _ := strconv.ParseFloat(string(f[n-3]), 64)
		return v
	}
	return procStat{
		pid:      pid,
		ppid:     int(num(4)),
		cpu:      (num(14) + num(15)) / clockTicks,
		children: (num(16) + num(17)) / clockTicks,
		rss:      int64(num(24)) * pageSize,
	}, true
}

// sampleTree measures every descendant of this process: how many there
// are, their CPU seconds so far (including descendants already reaped,
// through the kernel's children counters), their resident memory
// together and the largest one's.
func sampleTree() (s procSample, ok bool) {
	self := os.Getpid()
	me, ok := readStat("/proc/self/stat")
	if !ok {
		return s, false
	}
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return s, false
	}
	kids := map[int][]procStat{}
	for _, e := range dir {
		name := e.Name()
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		st, ok := readStat("/proc/" + name + "/stat")
		if !ok {
			continue // exited meanwhile
		}
		kids[st.ppid] = append(kids[st.ppid], st)
	}
	s.CPUSeconds = me.children
	queue := []int{self}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range kids[p] {
			s.Processes++
			s.CPUSeconds += c.cpu + c.children
			s.RSS += c.rss
			s.MaxRSS = max(s.MaxRSS, c.rss)
			queue = append(queue, c.pid)
		}
	}
	s.SelfCPUSeconds = me.cpu
	return s, true
}
