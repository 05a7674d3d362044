package messages

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeFrame: DecodeFrame never panics, reports every part of a frame
// as a message or an error, hands on only valid UTF-8, and every message it
// accepts re-encodes (with the Append functions) to valid JSON that decodes
// to the same envelope. Seeds are in testdata/fuzz/FuzzDecodeFrame.
func FuzzDecodeFrame(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	f.Fuzz(func(t *testing.T, frame []byte) {
		msgs, errs := DecodeFrame(frame)
		if len(msgs)+len(errs) == 0 {
			t.Fatalf("frame %q produced neither messages nor errors", frame)
		}
		for _, m := range msgs {
			checkUTF8(t, m)
			again := reencode(m)
			if !Valid(again) {
				t.Fatalf("re-encoding of %q is not valid JSON: %q", frame, again)
			}
			back, err := DecodeMessage(again)
			if err != nil {
				t.Fatalf("re-encoding %q of %q does not decode: %v", again, frame, err)
			}
			if !sameEnvelope(m, back) {
				t.Fatalf("envelope changed:\n  frame %q\n  first %+v\n  again %+v", frame, m, back)
			}
		}
	})
}

func reencode(m Message) []byte {
	switch m.Kind {
	case KindRequest:
		return AppendRequest(nil, m.ID, m.Method, m.Params)
	case KindNotification:
		return AppendNotification(nil, m.Method, m.Params)
	}
	if m.Error != nil {
		return AppendError(nil, m.ID, m.Error)
	}
	return AppendResult(nil, m.ID, m.Result)
}

func checkUTF8(t *testing.T, m Message) {
	t.Helper()
	ok := utf8.ValidString(m.Method) && utf8.ValidString(m.ID.str) &&
		utf8.Valid(m.Params) && utf8.Valid(m.Result)
	if m.Error != nil {
		ok = ok && utf8.ValidString(m.Error.Message) && utf8.Valid(m.Error.Data)
	}
	if !ok {
		t.Fatalf("invalid UTF-8 reached the caller: %+v", m)
	}
}

// sameEnvelope compares raw members byte for byte: they are passed through
// verbatim, so even numbers no float can hold must survive unchanged.
func sameEnvelope(a, b Message) bool {
	if a.Kind != b.Kind || a.ID != b.ID || a.Method != b.Method ||
		!bytes.Equal(a.Params, b.Params) || !bytes.Equal(a.Result, b.Result) {
		return false
	}
	if (a.Error == nil) != (b.Error == nil) {
		return false
	}
	return a.Error == nil || (a.Error.Code == b.Error.Code &&
		a.Error.Message == b.Error.Message && bytes.Equal(a.Error.Data, b.Error.Data))
}
