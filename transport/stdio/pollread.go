package stdio

import "sync"

// An idle connection waits for its server far longer than it reads, so it
// should hold no buffer while waiting: 4 KiB per stdout and per stderr
// would be most of an idle session's memory. readWhenReady waits for
// readability through the runtime poller (SyscallConn().Read) and takes a
// pooled buffer only for the read itself.

const pooledReadBytes = 4 << 10

// readBufPool holds *[4096]byte: a pointer to an array goes into the pool's
// interface without allocating, and any slice of it leads back to it.
var readBufPool = sync.Pool{New: func() any { return new([pooledReadBytes]byte) }}

func getReadBuf() []byte { return readBufPool.Get().(*[pooledReadBytes]byte)[:] }

func putReadBuf(b []byte) {
	if cap(b) != pooledReadBytes {
		return
	}
	readBufPool.Put((*[pooledReadBytes]byte)(b[:pooledReadBytes]))
}
