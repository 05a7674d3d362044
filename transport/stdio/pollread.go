package stdio

import "sync"

// An idle connection waits for its server far longer than it reads, so it
// should hold no buffer while waiting: 4 KiB per stdout and per stderr
// would be most of an idle session's memory. readWhenReady waits for
// readability through the runtime poller (SyscallConn().Read) and takes a
// pooled buffer only for the read itself.

const pooledReadBytes = 4 << 10

var readBufPool = sync.Pool{New: func() any { b := make([]byte, pooledReadBytes); return &b }}

func getReadBuf() []byte { return *readBufPool.Get().(*[]byte) }

func putReadBuf(b []byte) {
	if cap(b) != pooledReadBytes {
		return
	}
	b = b[:pooledReadBytes]
	readBufPool.Put(&b)
}
