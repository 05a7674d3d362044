package sse

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type result struct {
	events   []Event
	err      error
	lastID   string
	retry    time.Duration
	retrySet bool
}

func readAll(r *Reader) result {
	var res result
	for {
		ev, err := r.Next()
		if err != nil {
			res.err = err
			break
		}
		res.events = append(res.events, ev)
	}
	res.lastID = r.LastEventID()
	res.retry, res.retrySet = r.Retry()
	return res
}

func ev(id, typ, data string) Event { return Event{ID: id, Type: typ, Data: []byte(data)} }

var cases = []struct {
	name     string
	in       string
	want     []Event
	lastID   string
	retry    time.Duration
	retrySet bool
}{
	{name: "one data line", in: "data: hello\n\n", want: []Event{ev("", "", "hello")}},
	{name: "lines joined, trailing empty data line kept", in: "data: a\ndata:b\ndata\n\n", want: []Event{ev("", "", "a\nb\n")}},
	{name: "only one leading space is stripped", in: "data:  x \n\n", want: []Event{ev("", "", " x ")}},
	{name: "CRLF", in: "event: e\r\ndata: a\r\ndata: b\r\n\r\n", want: []Event{ev("", "e", "a\nb")}},
	{name: "lone CR", in: "data: a\rdata: b\r\rdata: c\r\r", want: []Event{ev("", "", "a\nb"), ev("", "", "c")}},
	{name: "mixed line ends", in: "data: a\r\ndata: b\rdata: c\n\r\n", want: []Event{ev("", "", "a\nb\nc")}},
	{name: "byte order mark skipped once", in: "\uFEFFdata: a\n\n\uFEFFdata: b\n\n", want: []Event{ev("", "", "a")}},
	{name: "comments ignored", in: ": keep-alive\n:\ndata: a\n: more\n\n", want: []Event{ev("", "", "a")}},
	{name: "unknown fields ignored", in: "foo: bar\nDATA: x\ndata: a\n\n", want: []Event{ev("", "", "a")}},
	{
		name:   "id persists across events",
		in:     "id: 1\ndata: a\n\ndata: b\n\nid: 2\nevent: t\ndata: c\n\n",
		want:   []Event{ev("1", "", "a"), ev("1", "", "b"), ev("2", "t", "c")},
		lastID: "2",
	},
	{name: "event type does not persist", in: "event: t\ndata: a\n\ndata: b\n\n", want: []Event{ev("", "t", "a"), ev("", "", "b")}},
	{name: "id with NUL ignored", in: "id: 1\ndata: a\n\nid: x\x00y\ndata: b\n\n", want: []Event{ev("1", "", "a"), ev("1", "", "b")}, lastID: "1"},
	{name: "bare id resets it", in: "id: 1\ndata: a\n\nid\ndata: b\n\n", want: []Event{ev("1", "", "a"), ev("", "", "b")}},
	{
		name: "priming event: id, retry, empty data", in: "id: e1\nretry: 50\ndata: \n\n",
		want: []Event{ev("e1", "", "")}, lastID: "e1", retry: 50 * time.Millisecond, retrySet: true,
	},
	{name: "event without data is not returned but sets the id", in: "id: 7\n\n", lastID: "7"},
	{name: "retry without colon is ignored", in: "retry\ndata: a\n\n", want: []Event{ev("", "", "a")}},
	{name: "retry must be digits", in: "retry: 12a\nretry: -5\nretry:\nretry: 1.5\n\n"},
	{name: "retry overflow ignored", in: "retry: 99999999999999999999\n\n"},
	{name: "latest valid retry wins", in: "retry: 10\nretry: x\nretry: 20\n\n", retry: 20 * time.Millisecond, retrySet: true},
	{name: "retry applies without a dispatch", in: "retry: 30\n", retry: 30 * time.Millisecond, retrySet: true},
	{name: "event cut off by EOF is discarded with its id", in: "id: 1\ndata: a\n\nid: 2\ndata: b\n", want: []Event{ev("1", "", "a")}, lastID: "1"},
	{name: "partial last line discarded", in: "data: a\n\ndata: b", want: []Event{ev("", "", "a")}},
	{name: "empty stream", in: ""},
	{name: "blank lines only", in: "\n\r\n\r\n\n"},
	{name: "JSON payload", in: "event: message\nid: s1-3\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n", want: []Event{ev("s1-3", "message", `{"jsonrpc":"2.0","id":1,"result":{}}`)}, lastID: "s1-3"},
}

// readers presents the same input in ways that split it differently.
var readers = map[string]func(string) io.Reader{
	"whole":     func(s string) io.Reader { return strings.NewReader(s) },
	"one byte":  func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
	"data+EOF":  func(s string) io.Reader { return iotest.DataErrReader(strings.NewReader(s)) },
	"half-byte": func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
}

func TestReaderInterpretsTheStream(t *testing.T) {
	for _, tc := range cases {
		for rname, mk := range readers {
			t.Run(tc.name+"/"+rname, func(t *testing.T) {
				res := readAll(NewReader(mk(tc.in), 1<<20))
				require.ErrorIs(t, res.err, io.EOF)
				assert.Equal(t, normalize(tc.want), normalize(res.events))
				assert.Equal(t, tc.lastID, res.lastID)
				assert.Equal(t, tc.retrySet, res.retrySet)
				assert.Equal(t, tc.retry, res.retry)
			})
		}
	}
}

// normalize makes nil and empty Data compare equal and keeps the
// assertion output readable.
func normalize(evs []Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = "id=" + e.ID + " type=" + e.Type + " data=" + string(e.Data)
	}
	return out
}

// chunks returns the pieces in turn, one per Read.
type chunks []string

func (c *chunks) Read(p []byte) (int, error) {
	if len(*c) == 0 {
		return 0, io.EOF
	}
	n := copy(p, (*c)[0])
	if n == len((*c)[0]) {
		*c = (*c)[1:]
	} else {
		(*c)[0] = (*c)[0][n:]
	}
	return n, nil
}

func TestCRAtTheEndOfAReadPairsWithTheNextLF(t *testing.T) {
	src := &chunks{"data: a\r", "\ndata: b\r", "\n\r", "\n"}
	res := readAll(NewReader(src, 100))
	assert.Equal(t, []string{"id= type= data=a\nb"}, normalize(res.events))
}

func TestByteOrderMarkSplitAcrossReads(t *testing.T) {
	src := &chunks{"\xEF", "\xBB", "\xBFdata: a\n\n"}
	res := readAll(NewReader(src, 100))
	assert.Equal(t, []string{"id= type= data=a"}, normalize(res.events))

	// A stream that merely starts like a BOM keeps its bytes (they make an
	// unknown field name here).
	res = readAll(NewReader(&chunks{"\xEF", "\xBBdata: a\n\ndata: b\n\n"}, 100))
	assert.Equal(t, []string{"id= type= data=b"}, normalize(res.events))
}

func TestDataAtTheCapIsAcceptedOneByteMoreFails(t *testing.T) {
	const limit = 10
	ok := strings.Repeat("x", limit)
	r := NewReader(strings.NewReader("data: "+ok+"\n\ndata: "+ok+"y\n\ndata: z\n\n"), limit)
	e, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, ok, string(e.Data))
	_, err = r.Next()
	var tl *TooLargeError
	require.ErrorAs(t, err, &tl)
	assert.Equal(t, limit, tl.Limit)
	assert.True(t, IsTooLarge(err))
	_, err = r.Next()
	assert.ErrorAs(t, err, &tl, "the failure is sticky")
}

func TestJoinedDataOverTheCapFails(t *testing.T) {
	// Each line fits; together (with the joining newlines) they do not.
	r := NewReader(strings.NewReader("data: 12345\ndata: 1234\n\ndata: 12345\ndata: 12345\n\n"), 10)
	e, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, "12345\n1234", string(e.Data))
	_, err = r.Next()
	assert.True(t, IsTooLarge(err))
}

func TestOverlongCommentOrIDLineFails(t *testing.T) {
	r := NewReader(strings.NewReader(":"+strings.Repeat("c", 100)+"\ndata: a\n\n"), 10)
	_, err := r.Next()
	assert.True(t, IsTooLarge(err))
	r = NewReader(strings.NewReader("id: "+strings.Repeat("i", 100)+"\ndata: a\n\n"), 10)
	_, err = r.Next()
	assert.True(t, IsTooLarge(err))
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

func TestEndlessLineFailsWithBoundedMemory(t *testing.T) {
	const limit = 1 << 20
	r := NewReader(io.MultiReader(strings.NewReader("data: "), endless{}), limit)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := r.Next()
	runtime.ReadMemStats(&after)
	assert.True(t, IsTooLarge(err))
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(3*limit))
}

func TestManyDataLinesFailWithBoundedMemory(t *testing.T) {
	const limit = 1 << 20
	line := "data: " + strings.Repeat("y", 1000) + "\n"
	r := NewReader(&repeat{s: line}, limit)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := r.Next()
	runtime.ReadMemStats(&after)
	assert.True(t, IsTooLarge(err))
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4*limit))
}

type repeat struct {
	s   string
	off int
}

func (r *repeat) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.s[r.off:])
		n += c
		r.off = (r.off + c) % len(r.s)
	}
	return n, nil
}

func TestResetKeepsLastIDAndRetryButDropsAHalfEvent(t *testing.T) {
	r := NewReader(strings.NewReader("id: 5\nretry: 40\ndata: a\n\nid: 6\ndata: half"), 100)
	e, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, "5", e.ID)
	_, err = r.Next()
	require.ErrorIs(t, err, io.EOF)

	r.Reset(strings.NewReader("data: b\n\nid: 7\ndata: c\n\n"))
	res := readAll(r)
	require.ErrorIs(t, res.err, io.EOF)
	assert.Equal(t, []string{"id=5 type= data=b", "id=7 type= data=c"}, normalize(res.events))
	assert.Equal(t, "7", res.lastID)
	assert.Equal(t, 40*time.Millisecond, res.retry)
}

func TestSourceErrorsArePassedOn(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("data: a\n\ndata: b\n"), iotest.ErrReader(boom)), 100)
	e, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, "a", string(e.Data))
	_, err = r.Next()
	assert.ErrorIs(t, err, boom)
	_, err = r.Next()
	assert.ErrorIs(t, err, boom, "sticky")
}

type silent struct{}

func (silent) Read([]byte) (int, error) { return 0, nil }

func TestSourceThatNeverProgressesFails(t *testing.T) {
	_, err := NewReader(silent{}, 100).Next()
	assert.ErrorIs(t, err, io.ErrNoProgress)
}

func TestEventDataIsOwnedByTheCaller(t *testing.T) {
	r := NewReader(strings.NewReader("data: first\n\ndata: second\n\n"), 100)
	a, err := r.Next()
	require.NoError(t, err)
	b, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, "first", string(a.Data))
	assert.Equal(t, "second", string(b.Data))
}
