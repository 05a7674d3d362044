package messages

import "testing"

// benchFrames are the frames the decode benchmarks compare on: a typical
// tools/call response, a ~2 KB one, a request and an error response.
var benchFrames = []struct{ name, frame string }{
	{"response", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}]}}`},
	{"response2KB", largeResponse()},
	{"request", `{"jsonrpc":"2.0","id":12,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":100}}`},
	{"error", `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Unknown tool: x","data":{"tool":"x"}}}`},
}

func BenchmarkDecodeFrame(b *testing.B) {
	for _, bf := range benchFrames {
		frame := []byte(bf.frame)
		b.Run(bf.name, func(b *testing.B) {
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			for b.Loop() {
				if msgs, errs := DecodeFrame(frame); len(msgs) != 1 || errs != nil {
					b.Fatal(errs)
				}
			}
		})
	}
}

func BenchmarkAppendDecodedFrame(b *testing.B) {
	for _, bf := range benchFrames {
		frame := []byte(bf.frame)
		b.Run(bf.name, func(b *testing.B) {
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			var one [1]Message
			for b.Loop() {
				if msgs, errs := AppendDecodedFrame(one[:0], frame); len(msgs) != 1 || errs != nil {
					b.Fatal(errs)
				}
			}
		})
	}
}

func BenchmarkUnmarshal(b *testing.B) {
	benchmarkCallToolResult(b, Unmarshal)
}

func BenchmarkUnmarshalOwned(b *testing.B) {
	benchmarkCallToolResult(b, UnmarshalOwned)
}

func benchmarkCallToolResult(b *testing.B, unmarshal func([]byte, any) error) {
	data := []byte(callToolResultJSON)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var r CallToolResult
		if err := unmarshal(data, &r); err != nil {
			b.Fatal(err)
		}
	}
}
