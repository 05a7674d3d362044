package messages

import (
	"sync"
	"unsafe"

	"github.com/bytedance/sonic/decoder"
)

// untrustedDecoderOptions are the decoder options the untrusted config
// freezes to (pinned by a test): ValidateString and CaseSensitive, no
// CopyString.
const untrustedDecoderOptions = decoder.OptionValidateString | decoder.OptionCaseSensitive

// ownedDecoders recycles sonic decoders. A decoder is three words, but on
// the hot path every allocation the decoded value does not need counts.
var ownedDecoders = sync.Pool{New: func() any {
	d := decoder.NewDecoder("")
	d.SetOptions(untrustedDecoderOptions)
	return d
}}

// UnmarshalOwned decodes data into v like Unmarshal (the same validation:
// raw control characters in strings rejected, invalid UTF-8 replaced by
// U+FFFD, member names matched exactly) but without first copying data.
//
// Decoded strings, bytes a json.Unmarshaler in v keeps, and the text of a
// returned error may alias data, so the caller owns data and must never
// modify it, nor reuse its buffer, while v or the error is in use.
// RawMessage members are still copies, except in a *CallToolResult of the
// common shape, which a scanner decodes (tool_result_decode.go): its
// StructuredContent and Meta alias data too. Use it on buffers that are not
// recycled, such as the raw members of messages from DecodeFrame, or from
// AppendDecodedFrame on a frame the caller owns.
//
// Invalid UTF-8 keeps working without the copy: sonic checks the whole
// input first and, if it finds any, decodes from a corrected copy instead.
func UnmarshalOwned(data []byte, v any) error {
	if r, ok := v.(*CallToolResult); ok && r.isZero() && decodeCallToolResultInPlace(data, r) {
		return nil
	}
	d := ownedDecoders.Get().(*decoder.Decoder)
	d.Reset(unsafe.String(unsafe.SliceData(data), len(data)))
	err := d.Decode(v)
	if err == nil {
		err = d.CheckTrailings()
	}
	d.Reset("") // the pool must not keep data alive
	ownedDecoders.Put(d)
	return err
}
