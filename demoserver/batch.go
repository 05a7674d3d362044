package demoserver

import (
	"sync"

	"github.com/mcpengine/mcpengine/messages"
)

// handleBatch handles a JSON-RPC batch array: every member in order, the
// answers collected into one array.
func (s *session) handleBatch(frame []byte) error {
	st := s.srv.stats
	st.add(&st.batches)
	var parts []messages.RawMessage
	if err := messages.Unmarshal(frame, &parts); err != nil || len(parts) == 0 {
		s.invalidMessage(frame, err, nil)
		return nil
	}
	msgs := make([]messages.Message, len(parts))
	errs := make([]error, len(parts))
	answers := 0
	for i, p := range parts {
		msgs[i], errs[i] = messages.DecodeMessage(p)
		if errs[i] != nil {
			if _, ok := probeID(p); ok {
				answers++
			}
		} else if msgs[i].Kind == messages.KindRequest {
			answers++
		}
	}
	var b *batchCollector
	if answers > 0 {
		b = &batchCollector{w: s.w, remaining: answers}
	}
	for i := range msgs {
		if errs[i] != nil {
			s.invalidMessage(parts[i], errs[i], b)
			continue
		}
		if err := s.handleMessage(&msgs[i], b); err != nil {
			return err
		}
	}
	return nil
}

// batchCollector gathers the responses to the requests of one batch and
// sends them as one array once all are in (JSON-RPC 2.0 §6).
type batchCollector struct {
	w         *writer
	mu        sync.Mutex
	remaining int
	parts     [][]byte
}

// add adds one response; skip accounts for a request answered by nothing.
func (b *batchCollector) add(frame []byte) { b.done(frame) }

func (b *batchCollector) skip() {
	if b != nil {
		b.done(nil)
	}
}

func (b *batchCollector) done(frame []byte) {
	b.mu.Lock()
	if frame != nil {
		b.parts = append(b.parts, frame)
	}
	b.remaining--
	last := b.remaining == 0
	b.mu.Unlock()
	if !last || len(b.parts) == 0 {
		return
	}
	size := 2
	for _, p := range b.parts {
		size += len(p) + 1
	}
	out := make([]byte, 0, size)
	out = append(out, '[')
	for i, p := range b.parts {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, p...)
		b.w.putBuf(p)
	}
	out = append(out, ']')
	b.w.sendResponse(out)
}
