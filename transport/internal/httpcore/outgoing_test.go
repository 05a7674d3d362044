package httpcore

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// classify is what WriteFrames does for a plain transport.Conn user:
// MessageOf, then OutgoingInto.
func classify(frame []byte) *Outgoing {
	m := MessageOf(frame)
	o := &Outgoing{}
	OutgoingInto(o, &m)
	return o
}

func TestOutgoing(t *testing.T) {
	frame := messages.AppendRequest(nil, messages.NumberID(3), "initialize", []byte(`{}`))
	o := classify(frame)
	frame[0] = 'X'
	assert.Equal(t, byte('{'), o.Frame[0], "the frame is copied")
	assert.Equal(t, []messages.ID{messages.NumberID(3)}, o.Requests)
	assert.True(t, o.Initialize)
	assert.False(t, o.Notification)

	o = classify(messages.AppendNotification(nil, "notifications/cancelled", []byte(`{"requestId":"a-1","reason":"timeout"}`)))
	assert.True(t, o.Notification)
	assert.Empty(t, o.Requests)
	assert.Equal(t, messages.StringID("a-1"), o.Cancel)

	o = classify(messages.AppendResult(nil, messages.StringID("s"), nil))
	assert.False(t, o.Notification)
	assert.Empty(t, o.Requests)

	// Not one message: sent, as a frame that awaits nothing.
	o = classify([]byte(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"}]`))
	assert.Empty(t, o.Requests)
	assert.False(t, o.Notification)

	o = classify([]byte(`not json`))
	assert.Empty(t, o.Requests)
	assert.False(t, o.Notification)
}

// What the session says of a message is taken as it is: the frame is not
// read.
func TestOutgoingTakesTheSessionsWord(t *testing.T) {
	var o Outgoing
	OutgoingInto(&o, &transport.Message{Frame: []byte(`garbage`), Kind: messages.KindNotification, Method: messages.NotificationCancelled, Cancels: messages.NumberID(4)})
	assert.True(t, o.Notification)
	assert.Equal(t, messages.NumberID(4), o.Cancel)
	assert.Equal(t, []byte(`garbage`), o.Frame)
}

func TestInspect(t *testing.T) {
	frame := messages.AppendResult(nil, messages.NumberID(1), []byte(`{"protocolVersion":"2025-06-18"}`))
	decoded := transport.DecodeInbound(frame, 0)
	in := Inspect(decoded, nil)
	assert.Equal(t, []messages.ID{messages.NumberID(1)}, in.Responses)
	assert.Equal(t, "2025-06-18", ProtocolVersion(decoded.Messages, messages.NumberID(1)))
	assert.Empty(t, ProtocolVersion(decoded.Messages, messages.NumberID(2)))

	in = Inspect(transport.DecodeInbound([]byte(`[{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}},{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"m"}}]`), 0), nil)
	assert.Equal(t, []messages.ID{messages.NumberID(4)}, in.Responses)
	assert.Len(t, in.Orphans, 1)
	assert.EqualValues(t, -32700, in.Orphans[0].Code)
	assert.Equal(t, 1, in.Others)

	in = Inspect(transport.DecodeInbound([]byte(`garbage`), 0), nil)
	assert.Equal(t, 1, in.Others)
}

// OutgoingInto and Inspect run once per message each way: a plain
// message must not cost a full decode (go test -bench . ./transport/internal/httpcore).
func BenchmarkOutgoingRequest(b *testing.B) {
	m := transport.Message{Kind: messages.KindRequest, ID: messages.NumberID(42), Method: "tools/call", Params: []byte(`{"name":"echo","arguments":{"text":"hello"}}`)}
	m.Frame = messages.AppendRequest(nil, m.ID, m.Method, m.Params)
	b.ReportAllocs()
	for b.Loop() {
		var o Outgoing
		OutgoingInto(&o, &m)
	}
}

func BenchmarkInspectResult(b *testing.B) {
	frame := messages.AppendResult(nil, messages.NumberID(42), []byte(`{"content":[{"type":"text","text":"hello"}]}`))
	b.ReportAllocs()
	for b.Loop() {
		in := GetInbound(frame, 0)
		_ = Inspect(in, nil)
		PutInbound(in)
	}
}

func BenchmarkOutgoingModernRequest(b *testing.B) {
	m := transport.Message{Kind: messages.KindRequest, ID: messages.NumberID(42), Method: "tools/call", Params: []byte(`{"name":"echo","arguments":{"text":"hello"}}`), Version: "2026-07-28"}
	m.Frame = messages.AppendRequest(nil, m.ID, m.Method, []byte(`{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpengine","version":"1"}}}`))
	b.ReportAllocs()
	for b.Loop() {
		var o Outgoing
		OutgoingInto(&o, &m)
	}
}

func BenchmarkInspectResultIntoArray(b *testing.B) {
	frame := messages.AppendResult(nil, messages.NumberID(42), []byte(`{"content":[{"type":"text","text":"hello"}]}`))
	b.ReportAllocs()
	for b.Loop() {
		var ids [1]messages.ID
		in := GetInbound(frame, 0)
		_ = Inspect(in, ids[:0])
		PutInbound(in)
	}
}
