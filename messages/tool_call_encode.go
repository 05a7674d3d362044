package messages

import (
	"sync"

	"github.com/bytedance/sonic/encoder"
)

// MarshalCallToolParams gives Marshal(p)'s bytes. Marshal compiles an
// encoder for CallToolParams (and TaskMetadata, _meta's map) on a
// process's first tools/call, ~2 ms before its first call can leave;
// here the envelope is appended by hand, and so are arguments of the
// usual types (appendArgs); others go through sonic, into the same
// buffer. A call allocates what Marshal(p) allocated: its result. A call
// with a task, _meta or a name that is not plain ASCII goes through
// Marshal.
func MarshalCallToolParams(p *CallToolParams) ([]byte, error) {
	if p.Task != nil || len(p.Meta) > 0 || !plainASCII(p.Name) {
		return Marshal(p)
	}
	// The arguments are encoded into *bp itself: the address of a local
	// slice passed to EncodeInto would move that slice header to the heap,
	// one allocation per call more than Marshal.
	bp := callScratch.Get().(*[]byte)
	b := append((*bp)[:0], `{"name":"`...)
	b = append(b, p.Name...)
	*bp = append(b, '"')
	if p.Arguments != nil {
		*bp = append(*bp, `,"arguments":`...)
		// What appendArgs refuses (it leaves *bp's length as it was) goes
		// to sonic.
		if args, ok := appendArgs(*bp, p.Arguments, 0); ok {
			*bp = args
		} else if err := encoder.EncodeInto(bp, p.Arguments, outgoingOptions); err != nil {
			callScratch.Put(bp)
			return nil, err
		}
	}
	b = append(*bp, '}')
	out := make([]byte, len(b))
	copy(out, b)
	if cap(b) <= maxCallScratch {
		*bp = b
		callScratch.Put(bp)
	}
	return out, nil
}

// outgoingOptions are the outgoing codec's (codec.go) as encoder options:
// EscapeHTML is off, so it has no flag.
const outgoingOptions = encoder.ValidateString | encoder.CompactMarshaler | encoder.NoNullSliceOrMap

// callScratch holds the buffers MarshalCallToolParams encodes into before
// copying out the result; one grown past maxCallScratch by a large call is
// dropped rather than kept.
var callScratch = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

const maxCallScratch = 64 << 10
