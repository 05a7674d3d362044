package testkit

import "runtime"

// LiveHeap is the heap in use after a full collection: what a test
// measures before and after building something, so that garbage left by
// earlier work does not count.
func LiveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
