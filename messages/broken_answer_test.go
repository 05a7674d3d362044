package messages

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A broken response whose id can still be read says which request it
// answers, on both decoding paths (a single frame goes through the
// scanner, a batch member through sonic); a broken request or a message
// with an unreadable id says nothing.
func TestABrokenAnswerCarriesItsIDWhenItCanBeRead(t *testing.T) {
	cases := []struct {
		frame string
		id    ID
	}{
		{`{"jsonrpc":"1.0","id":7,"result":{}}`, NumberID(7)},
		{`{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1,"message":"x"}}`, NumberID(7)},
		{`{"jsonrpc":"2.0","id":7}`, NumberID(7)},
		{`{"jsonrpc":"2.0","id":"a","error":{"code":"E1","message":"x"}}`, StringID("a")},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":1}}`, NumberID(7)},
		{`{"jsonrpc":"2.0","id":{"n":7},"result":{}}`, ID{}},                  // unreadable id
		{`{"jsonrpc":"1.0","id":7,"method":"ping"}`, ID{}},                    // a request, not an answer
		{`{"jsonrpc":"2.0","id":7,"method":"ping","result":{}}`, ID{}},        // has a method
		{`{"jsonrpc":"2.0","id":null,"result":{}}`, ID{}},                     // null is no request's id
		{`{"jsonrpc":"2.0","id":1.5,"error":{"code":1,"message":"x"}}`, ID{}}, // not an id
	}
	for _, c := range cases {
		for _, frame := range []string{c.frame, "[" + c.frame + "]"} {
			msgs, errs, _ := AppendDecodedFrameLimit(nil, []byte(frame), 0)
			assert.Empty(t, msgs, frame)
			require.Len(t, errs, 1, frame)
			var ime *InvalidMessageError
			require.ErrorAs(t, errs[0], &ime, frame)
			assert.Equal(t, c.id, ime.ID, frame)
		}
	}
}

func TestNumberInStringRecognisesANumberSentBackAsAString(t *testing.T) {
	n, ok := StringID("42").NumberInString()
	assert.True(t, ok)
	assert.Equal(t, int64(42), n)
	_, ok = StringID("srv-1").NumberInString()
	assert.False(t, ok)
	_, ok = NumberID(42).NumberInString()
	assert.False(t, ok, "a number id is not a string")
}

// Invalid UTF-8 inside a string is accepted with U+FFFD in its place, and
// reported so that the session can count it; valid frames report nothing.
func TestInvalidUTF8InsideStringsIsReplacedAndReported(t *testing.T) {
	frame := []byte("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"text\":\"a\xffb\"}}")
	msgs, errs, replaced := AppendDecodedFrameLimit(nil, frame, 0)
	require.Empty(t, errs)
	require.Len(t, msgs, 1)
	assert.True(t, replaced)
	var r struct {
		Text string `json:"text"`
	}
	require.NoError(t, Unmarshal(msgs[0].Result, &r))
	assert.Equal(t, "a\uFFFDb", r.Text)

	_, _, replaced = AppendDecodedFrameLimit(nil, []byte(`{"jsonrpc":"2.0","id":3,"result":{"text":"ab"}}`), 0)
	assert.False(t, replaced)
	_, _, replaced = AppendDecodedFrameLimit(nil, []byte(`[{"jsonrpc":"2.0","id":3,"result":{"text":"é"}}]`), 0)
	assert.False(t, replaced, "a batch of valid UTF-8")
	_, errs, replaced = AppendDecodedFrameLimit(nil, []byte("not json \xff"), 0)
	assert.Len(t, errs, 1)
	assert.False(t, replaced, "nothing was accepted")
}
