package configcheck

import (
	"bytes"
	"strings"
)

// Position is a place in a document, for a person to find.
type Position struct {
	Line   int    // 1-based
	Column int    // 1-based, in bytes
	Text   string // the whole line, without its newline
}

// PositionOf locates byte offset off of data. An offset past the end
// points just after the last byte.
func PositionOf(data []byte, off int64) Position {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	start := bytes.LastIndexByte(before, '\n') + 1
	end := bytes.IndexByte(data[start:], '\n')
	if end < 0 {
		end = len(data) - start
	}
	text := strings.TrimRight(string(data[start:start+end]), "\r")
	return Position{Line: bytes.Count(before, []byte{'\n'}) + 1, Column: int(off) - start + 1, Text: text}
}

// Caret is the line under Text that points at Column, keeping Text's
// tabs so that the caret lines up in a terminal.
func (p Position) Caret() string {
	var b strings.Builder
	for i := 0; i < p.Column-1 && i < len(p.Text); i++ {
		if p.Text[i] == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	for i := len(p.Text); i < p.Column-1; i++ {
		b.WriteByte(' ')
	}
	b.WriteByte('^')
	return b.String()
}
