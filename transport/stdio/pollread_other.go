//go:build !unix

package stdio

import "io"

// pollReader is Unix-only; elsewhere readers use buffers of their own.
type pollReader struct{}

func newPollReader(io.Reader) *pollReader { return nil }

func (*pollReader) read() ([]byte, int, error) { return nil, 0, io.EOF }

func (*pollReader) readNow([]byte) (int, error) { return 0, io.EOF }
