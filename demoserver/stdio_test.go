package demoserver

import (
	"bufio"
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

type stdioHarness struct {
	stdin  *io.PipeWriter // what the test writes
	stdout *bufio.Reader  // what the test reads
	outR   *io.PipeReader
	done   chan error
	cancel context.CancelFunc
}

func startStdio(t *testing.T, opts Options) *stdioHarness {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	h := &stdioHarness{stdin: inW, stdout: bufio.NewReader(outR), outR: outR, done: make(chan error, 1), cancel: cancel}
	// Owner: the test; exits when ServeStdio returns (stdin EOF, ctx
	// cancelled or a fault); cleanup waits for it.
	go func() { h.done <- ServeStdio(ctx, opts, inR, outW) }()
	t.Cleanup(func() {
		cancel()
		_ = inW.Close()
		_ = outR.Close()
		h.wait(t)
	})
	return h
}

func (h *stdioHarness) wait(t *testing.T) error {
	select {
	case err := <-h.done:
		h.done <- err
		return err
	case <-time.After(testTimeout):
		t.Fatal("ServeStdio did not return")
		return nil
	}
}

func (h *stdioHarness) roundTrip(t *testing.T, id int64, method, params string) messages.Message {
	t.Helper()
	line := messages.AppendRequest(nil, messages.NumberID(id), method, messages.RawMessage(params))
	_, err := h.stdin.Write(append(line, '\n'))
	require.NoError(t, err)
	resp, err := h.stdout.ReadBytes('\n')
	require.NoError(t, err)
	m, err := messages.DecodeMessage(resp[:len(resp)-1])
	require.NoError(t, err)
	return m
}

const initParams = `{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`

func TestServeStdio(t *testing.T) {
	h := startStdio(t, Options{})
	m := h.roundTrip(t, 1, messages.MethodInitialize, initParams)
	require.Nil(t, m.Error)
	m = h.roundTrip(t, 2, messages.MethodToolsCall, `{"name":"echo","arguments":{"text":"line\nbreak"}}`)
	require.Nil(t, m.Error)
	assert.Contains(t, string(m.Result), `line\nbreak`)

	require.NoError(t, h.stdin.Close()) // EOF: the server ends
	require.NoError(t, h.wait(t))
	_, err := h.stdout.ReadByte()
	assert.ErrorIs(t, err, io.EOF)
}

func TestServeStdioCloseAfterStaysAlive(t *testing.T) {
	h := startStdio(t, Options{CloseAfter: 1})
	require.Nil(t, h.roundTrip(t, 1, messages.MethodInitialize, initParams).Error)
	_, err := h.stdin.Write([]byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"))
	require.NoError(t, err)
	_, err = h.stdout.ReadByte()
	assert.ErrorIs(t, err, io.EOF) // stdout closed...
	select {
	case err := <-h.done:
		t.Fatalf("ServeStdio returned before its context ended: %v", err)
	default: // ...but the "process" is still alive
	}
	h.cancel()
	assert.ErrorIs(t, h.wait(t), ErrCloseRequested)
}
