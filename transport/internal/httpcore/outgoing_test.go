package httpcore

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpengine/mcpengine/messages"
)

func TestClassify(t *testing.T) {
	frame := messages.AppendRequest(nil, messages.NumberID(3), "initialize", []byte(`{}`))
	o := Classify(frame)
	frame[0] = 'X'
	assert.Equal(t, byte('{'), o.Frame[0], "the frame is copied")
	assert.Equal(t, []messages.ID{messages.NumberID(3)}, o.Requests)
	assert.True(t, o.Initialize)
	assert.False(t, o.Notification)

	o = Classify(messages.AppendNotification(nil, "notifications/cancelled", []byte(`{"requestId":"a-1","reason":"timeout"}`)))
	assert.True(t, o.Notification)
	assert.Empty(t, o.Requests)
	assert.Equal(t, []messages.ID{messages.StringID("a-1")}, o.Cancels)

	o = Classify(messages.AppendResult(nil, messages.StringID("s"), nil))
	assert.False(t, o.Notification)
	assert.Empty(t, o.Requests)

	o = Classify([]byte(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"},{"jsonrpc":"2.0","id":2,"method":"c"}]`))
	assert.Equal(t, []messages.ID{messages.NumberID(1), messages.NumberID(2)}, o.Requests)
	assert.True(t, o.Notification)

	o = Classify([]byte(`not json`))
	assert.Empty(t, o.Requests)
	assert.False(t, o.Notification)
}

func TestInspect(t *testing.T) {
	frame := messages.AppendResult(nil, messages.NumberID(1), []byte(`{"protocolVersion":"2025-06-18"}`))
	in := Inspect(frame, nil)
	assert.Equal(t, []messages.ID{messages.NumberID(1)}, in.Responses)
	assert.Equal(t, "2025-06-18", ProtocolVersion(frame, messages.NumberID(1)))
	assert.Empty(t, ProtocolVersion(frame, messages.NumberID(2)))

	in = Inspect([]byte(`[{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}},{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"m"}}]`), nil)
	assert.Equal(t, []messages.ID{messages.NumberID(4)}, in.Responses)
	assert.Len(t, in.Orphans, 1)
	assert.EqualValues(t, -32700, in.Orphans[0].Code)
	assert.Equal(t, 1, in.Others)

	in = Inspect([]byte(`garbage`), nil)
	assert.Equal(t, 1, in.Others)
}

// Classify and Inspect run once per frame each way: a plain message must
// not cost a full decode (go test -bench . ./transport/internal/httpcore).
func BenchmarkClassifyRequest(b *testing.B) {
	frame := messages.AppendRequest(nil, messages.NumberID(42), "tools/call", []byte(`{"name":"echo","arguments":{"text":"hello"}}`))
	b.ReportAllocs()
	for b.Loop() {
		_ = Classify(frame)
	}
}

func BenchmarkInspectResult(b *testing.B) {
	frame := messages.AppendResult(nil, messages.NumberID(42), []byte(`{"content":[{"type":"text","text":"hello"}]}`))
	b.ReportAllocs()
	for b.Loop() {
		_ = Inspect(frame, nil)
	}
}

// ClassifyInto and Inspect into an array are what the Streamable HTTP
// transport calls: into its post (here the Outgoing escapes: one
// allocation more than there), and into its stack.
func BenchmarkClassifyIntoRequest(b *testing.B) {
	frame := messages.AppendRequest(nil, messages.NumberID(42), "tools/call", []byte(`{"name":"echo","arguments":{"text":"hello"}}`))
	b.ReportAllocs()
	for b.Loop() {
		var o Outgoing
		ClassifyInto(&o, frame)
	}
}

func BenchmarkClassifyIntoModernRequest(b *testing.B) {
	frame := messages.AppendRequest(nil, messages.NumberID(42), "tools/call", []byte(`{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpengine","version":"1"}}}`))
	b.ReportAllocs()
	for b.Loop() {
		var o Outgoing
		ClassifyInto(&o, frame)
	}
}

func BenchmarkInspectResultIntoArray(b *testing.B) {
	frame := messages.AppendResult(nil, messages.NumberID(42), []byte(`{"content":[{"type":"text","text":"hello"}]}`))
	b.ReportAllocs()
	for b.Loop() {
		var ids [1]messages.ID
		_ = Inspect(frame, ids[:0])
	}
}
