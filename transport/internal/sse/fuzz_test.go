package sse

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// reference is a literal transcription of the standard's parsing rules
// over a whole input, with the same caps, for the fuzz test to compare with.
// tail reports an unterminated last line longer than the line cap: the
// streaming Reader may fail it as too large before it sees the end of the
// stream, or drop it at EOF, depending on how the input is split into reads.
func reference(in []byte, max int) (events []Event, lastID string, retry time.Duration, retrySet, tooLarge, tail bool) {
	in = bytes.TrimPrefix(in, bom)
	var lines [][]byte
	for len(in) > 0 {
		i := bytes.IndexAny(in, "\r\n")
		if i < 0 {
			tail = len(in) > max+lineSlack
			break
		}
		lines = append(lines, in[:i])
		if in[i] == '\r' && i+1 < len(in) && in[i+1] == '\n' {
			i++
		}
		in = in[i+1:]
	}
	var data []byte
	var hasData bool
	var typ, idBuf string
	for _, line := range lines {
		if len(line) > max+lineSlack {
			return events, lastID, retry, retrySet, true, false
		}
		if len(line) == 0 {
			lastID = idBuf
			if hasData {
				events = append(events, Event{ID: lastID, Type: typ, Data: data})
			}
			data, hasData, typ = nil, false, ""
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value := string(line), ""
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = string(line[:i]), strings.TrimPrefix(string(line[i+1:]), " ")
		}
		switch name {
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
			if len(data) > max {
				return events, lastID, retry, retrySet, true, false
			}
		case "event":
			typ = value
		case "id":
			if !strings.Contains(value, "\x00") {
				idBuf = value
			}
		case "retry":
			if ms, ok := parseDigits([]byte(value)); ok {
				retry, retrySet = time.Duration(ms)*time.Millisecond, true
			}
		}
	}
	return events, lastID, retry, retrySet, false, tail
}

// FuzzReader: whatever the input and however it is split into reads, the
// Reader never panics, agrees with the reference on every event, the last
// event ID and the retry time, and fails oversized input as too large.
func FuzzReader(f *testing.F) {
	for _, tc := range cases {
		f.Add([]byte(tc.in), uint8(3), uint16(1<<10))
	}
	f.Add([]byte("data: 0123456789abcdef\n\n"), uint8(1), uint16(8))
	f.Add([]byte("data: 1234\ndata: 1234\n\n"), uint8(2), uint16(8))
	f.Add([]byte(":"+strings.Repeat("x", 40)+"\n"), uint8(5), uint16(4))
	f.Add([]byte("data: a\r"), uint8(8), uint16(4))
	f.Fuzz(func(t *testing.T, in []byte, split uint8, max uint16) {
		limit := int(max%2048) + 1
		want, wantID, wantRetry, wantRetrySet, wantTooLarge, tail := reference(in, limit)

		step := int(split%16) + 1
		var src io.Reader = &stepReader{b: in, step: step}
		r := NewReader(src, limit)
		var got []Event
		var err error
		for {
			var e Event
			if e, err = r.Next(); err != nil {
				break
			}
			got = append(got, e)
		}
		if len(got) != len(want) {
			t.Fatalf("input %q (step %d, cap %d): got %d events, want %d\n got %q\nwant %q", in, step, limit, len(got), len(want), normalize(got), normalize(want))
		}
		for i := range got {
			if got[i].ID != want[i].ID || got[i].Type != want[i].Type || !bytes.Equal(got[i].Data, want[i].Data) {
				t.Fatalf("input %q: event %d is %q, want %q", in, i, normalize(got[i:i+1]), normalize(want[i:i+1]))
			}
		}
		switch {
		case wantTooLarge:
			if !IsTooLarge(err) {
				t.Fatalf("input %q (cap %d): error %v, want too large", in, limit, err)
			}
			return // the stream state after the failure is unspecified
		case tail:
			if err != io.EOF && !IsTooLarge(err) {
				t.Fatalf("input %q: error %v", in, err)
			}
		case err != io.EOF:
			t.Fatalf("input %q (cap %d): error %v, want EOF", in, limit, err)
		}
		if IsTooLarge(err) {
			return
		}
		if r.LastEventID() != wantID {
			t.Fatalf("input %q: last event ID %q, want %q", in, r.LastEventID(), wantID)
		}
		if d, ok := r.Retry(); d != wantRetry || ok != wantRetrySet {
			t.Fatalf("input %q: retry %v %v, want %v %v", in, d, ok, wantRetry, wantRetrySet)
		}
	})
}

// stepReader returns at most step bytes per Read.
type stepReader struct {
	b    []byte
	step int
}

func (s *stepReader) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), s.step)], s.b)
	s.b = s.b[n:]
	return n, nil
}
