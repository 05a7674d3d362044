package messages

import "errors"

var errSamplingContent = errors.New("sampling content must be a content object or an array of them")

// DecodeSamplingContent decodes sampling content, which is one content
// block or (2025-11-25) an array of blocks, into a slice either way.
func DecodeSamplingContent(raw RawMessage) ([]ContentBlock, error) {
	raw = trimSpace(raw)
	if len(raw) == 0 {
		return nil, errSamplingContent
	}
	switch raw[0] {
	case '[':
		var blocks []ContentBlock
		if err := Unmarshal(raw, &blocks); err != nil {
			return nil, err
		}
		return blocks, nil
	case '{':
		var b ContentBlock
		if err := Unmarshal(raw, &b); err != nil {
			return nil, err
		}
		return []ContentBlock{b}, nil
	}
	return nil, errSamplingContent
}

// EncodeSamplingContent encodes one block as a bare object, which every
// version accepts, and several as an array, which only 2025-11-25 does.
func EncodeSamplingContent(blocks ...ContentBlock) (RawMessage, error) {
	switch len(blocks) {
	case 0:
		return nil, errSamplingContent
	case 1:
		return Marshal(blocks[0])
	}
	return Marshal(blocks)
}
