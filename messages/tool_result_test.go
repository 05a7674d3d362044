package messages

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestToolResultIsError(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"content":[{"type":"text","text":"boom"}],"isError":true}`:   true,
		` {"isError" : true , "content":[]} `:                          true,
		`{"content":[{"type":"text","text":"\"isError\":true"}]}`:      false,
		`{"content":[],"isError":false}`:                               false,
		`{"content":[],"structuredContent":{"isError":true}}`:          false,
		`{"content":[],"is\u0045rror":true}`:                           true, // escaped name: the decoder's answer
		`{"content":[],"isError":true,"_meta":{"x":"` + "\xff" + `"}}`: true, // invalid UTF-8: the decoder's answer
		`{"content":[]}`: false,
		`not json`:       false,
		``:               false,
	} {
		assert.Equal(t, want, ToolResultIsError(RawMessage(raw)), raw)
	}
	raw := RawMessage(`{"content":[{"type":"text","text":"hello"}],"isError":true}`)
	assert.Zero(t, testing.AllocsPerRun(100, func() { ToolResultIsError(raw) }))
}
