package loadgen

// procSample is one measurement of the processes this one started.
type procSample struct {
	Processes      int
	CPUSeconds     float64 // all descendants, ever (reaped ones included)
	RSS, MaxRSS    int64   // resident bytes: together, and the largest one
	SelfCPUSeconds float64 // this process
}

// ProcStats describe the server processes the engine started (stdio
// targets: one per session), sampled once per interval. CPU is in percent
// of one core.
type ProcStats struct {
	// Processes is the most seen at once (children of theirs included).
	Processes int `json:"processes_max"`
	// CPUSeconds is their CPU time during the run.
	CPUSeconds    float64 `json:"cpu_s"`
	CPUPercent    float64 `json:"cpu_pct_mean"`
	CPUPercentMax float64 `json:"cpu_pct_max"`
	// RSS is their resident memory together: at the first and last
	// sample and the highest; RSSPerProcessMax the largest single one.
	RSSFirst         int64 `json:"rss_bytes_first"`
	RSSLast          int64 `json:"rss_bytes_last"`
	RSSMax           int64 `json:"rss_bytes_max"`
	RSSPerProcessMax int64 `json:"rss_bytes_per_process_max"`
}

// ClientStats describe this process, the load generator: if its CPU is
// near the machine's capacity, the figures measure the client, not the
// server.
type ClientStats struct {
	CPUSeconds float64 `json:"cpu_s"`
	CPUPercent float64 `json:"cpu_pct_mean"`
	// HeapBytesMax is the Go heap's highest sample.
	HeapBytesMax uint64 `json:"heap_bytes_max"`
	// HistogramBytes is the memory all latency histograms hold at the end:
	// it depends on the sessions and request kinds, not on the run's length.
	HistogramBytes int64 `json:"histogram_bytes"`
	// Cores is GOMAXPROCS (the CPUs Go runs on at once) and CPUs the
	// logical CPUs the OS lets the process use (runtime.NumCPU); a
	// distributed run's are summed over its members.
	Cores int `json:"cores"`
	CPUs  int `json:"cpus"`
}
