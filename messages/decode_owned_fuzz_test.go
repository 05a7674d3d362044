package messages

import "testing"

// FuzzAppendDecodedFrame: on any input AppendDecodedFrame never panics,
// never modifies the frame, returns exactly what DecodeFrame returns (raw
// members byte for byte, errors text for text), and its fast path takes
// only valid JSON. Seeds are in testdata/fuzz/FuzzAppendDecodedFrame.
func FuzzAppendDecodedFrame(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}]}}`))
	f.Fuzz(func(t *testing.T, frame []byte) {
		requireSameDecoding(t, frame)
	})
}
