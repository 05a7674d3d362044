package messages

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUntrustedDecoderOptionsAreTheConfigsOwn(t *testing.T) {
	opts := reflect.ValueOf(untrusted).Elem().FieldByName("decoderOpts")
	require.True(t, opts.IsValid(), "sonic's frozen config changed shape")
	assert.Equal(t, uint64(untrustedDecoderOptions), opts.Uint(),
		"UnmarshalOwned must decode with exactly the options Unmarshal uses")
}

// TestUnmarshalOwnedBehavesLikeUnmarshal decodes each input into each
// target type both ways and wants the same values and the same errors.
func TestUnmarshalOwnedBehavesLikeUnmarshal(t *testing.T) {
	inputs := []string{
		`"plain"`,
		`"esc\"aped\u00e9\n"`,
		`"\ud800"`,
		"\"a\xffb\"",
		"\"\xc3\"",
		"\"a\x01b\"",
		"\"a\nb\"",
		"{\"a\tb\":1}",
		"{\"other\":\"\x00\"}",
		"{\"params\":{\"a\":\"x\x1fy\"}}",
		"{\"a\":\"x\xffy\"}",
		"{\"a\xff\":1}",
		`["\ud800"]`,
		`{"content":[{"type":"text","text":"hello"}],"isError":true,"structuredContent":{"a":[1]}}`,
		"{\"content\":[{\"type\":\"text\",\"text\":\"h\xffi\"}],\"_meta\":{\"k\xfe\":\"v\"}}",
		`{"Content":[{"type":"text","text":"wrong case"}],"ISERROR":true}`,
		`{"name":"right","Name":"wrong","arguments":{"x":1}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}`,
		`{"content":[]} x`,
		`{"content":[]}   `,
		`{"content":[`,
		`{"content":"not an array"}`,
		`{"isError":"yes"}`,
		`1e999`,
		`null`,
		`[1,2,"3"]`,
		``,
		` `,
	}
	targets := []func() any{
		func() any { return new(string) },
		func() any { return new(RawMessage) },
		func() any { return new(any) },
		func() any { return new(CallToolResult) },
		func() any { return new(CallToolParams) },
		func() any { return new(wireEnvelope) },
		func() any { return new(map[string]any) },
	}
	for _, in := range inputs {
		for _, target := range targets {
			want, got := target(), target()
			name := fmt.Sprintf("%q into %T", in, want)
			wantErr := Unmarshal([]byte(in), want)
			gotErr := UnmarshalOwned([]byte(in), got)
			if wantErr != nil {
				require.Error(t, gotErr, name)
				assert.Equal(t, wantErr.Error(), gotErr.Error(), name)
			} else {
				require.NoError(t, gotErr, name)
			}
			assert.Equal(t, want, got, name)
		}
	}
}

func TestUnmarshalOwnedReplacesInvalidUTF8WithoutTheCopy(t *testing.T) {
	data := []byte("{\"content\":[{\"type\":\"text\",\"text\":\"a\xffb\xc3\"}]}")
	var r CallToolResult
	require.NoError(t, UnmarshalOwned(data, &r))
	require.Len(t, r.Content, 1)
	assert.Equal(t, "a\uFFFDb\uFFFD", r.Content[0].Text)
	assert.True(t, utf8.ValidString(r.Content[0].Text))
	assert.False(t, aliases(unsafe.Slice(unsafe.StringData(r.Content[0].Text), len(r.Content[0].Text)), data),
		"a corrected string cannot point into the uncorrected input")
}

func TestUnmarshalOwnedDoesNotCopyTheInput(t *testing.T) {
	data := []byte(`{"content":[{"type":"text","text":"hello"}]}`)
	var r CallToolResult
	require.NoError(t, UnmarshalOwned(data, &r))
	require.Len(t, r.Content, 1)
	text := r.Content[0].Text
	assert.Equal(t, "hello", text)
	assert.True(t, aliases(unsafe.Slice(unsafe.StringData(text), len(text)), data),
		"decoded strings point into data: the caller must not modify it")
}

func TestUnmarshalOwnedAllocatesLessThanUnmarshal(t *testing.T) {
	data := []byte(callToolResultJSON)
	decode := func(unmarshal func([]byte, any) error) func() {
		return func() {
			var r CallToolResult
			if err := unmarshal(data, &r); err != nil || len(r.Content) != 2 {
				panic(fmt.Sprint("decode failed: ", err))
			}
		}
	}
	copying := testing.AllocsPerRun(200, decode(Unmarshal))
	owned := testing.AllocsPerRun(200, decode(UnmarshalOwned))
	t.Logf("allocations per decode: Unmarshal %.0f, UnmarshalOwned %.0f", copying, owned)
	assert.Less(t, owned, copying)
}

func TestUnmarshalOwnedIsSafeForConcurrentUse(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				text := fmt.Sprintf("g%d-%d", g, i)
				data := []byte(`{"content":[{"type":"text","text":"` + text + `"}]}`)
				if i%7 == 0 {
					data = append(data, " trailing"...)
				}
				var r CallToolResult
				err := UnmarshalOwned(data, &r)
				if i%7 == 0 {
					assert.Error(t, err)
					continue
				}
				if assert.NoError(t, err) && assert.Len(t, r.Content, 1) {
					assert.Equal(t, text, r.Content[0].Text)
				}
			}
		})
	}
	wg.Wait()
}

// callToolResultJSON is a typical tools/call result: two text blocks,
// structured content and _meta.
const callToolResultJSON = `{"content":[{"type":"text","text":"The weather in Paris is 21°C and sunny."},` +
	`{"type":"text","text":"Forecast: \"clear\" all week","annotations":{"audience":["user"],"priority":0.5}}],` +
	`"structuredContent":{"temperature":21,"unit":"C","conditions":"sunny"},"isError":false,` +
	`"_meta":{"requestId":"abc-123"}}`
