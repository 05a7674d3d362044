//go:build !linux

package loadgen

// sampleTree is not implemented outside Linux: no process figures.
func sampleTree() (procSample, bool) { return procSample{}, false }
