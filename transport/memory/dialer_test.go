package memory

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/transport"
)

func TestDialerServesEachDialOnItsOwnPipe(t *testing.T) {
	served := make(chan struct{}, 2)
	d := NewDialer("upper", func(conn transport.Conn) {
		defer func() { served <- struct{}{} }()
		for {
			f, err := conn.ReadFrame()
			if err != nil {
				return
			}
			for i, c := range f {
				if 'a' <= c && c <= 'z' {
					f[i] = c - 'a' + 'A'
				}
			}
			if conn.WriteFrames(f) != nil {
				return
			}
		}
	})
	assert.Equal(t, "memory:upper", d.String())
	c1, err := d.Dial(context.Background())
	require.NoError(t, err)
	c2, err := d.Dial(context.Background())
	require.NoError(t, err)

	require.NoError(t, c1.WriteFrames([]byte("one")))
	require.NoError(t, c2.WriteFrames([]byte("two")))
	got, err := c2.ReadFrame()
	require.NoError(t, err)
	assert.Equal(t, "TWO", string(got))
	got, err = c1.ReadFrame()
	require.NoError(t, err)
	assert.Equal(t, "ONE", string(got))

	require.NoError(t, c1.Close(context.Background()))
	require.NoError(t, c2.Close(context.Background()))
	<-served
	<-served // both serve goroutines returned: goleak would catch them otherwise
}

func TestServeReturningClosesTheServerEnd(t *testing.T) {
	d := NewDialer("once", func(conn transport.Conn) {
		_ = conn.WriteFrames([]byte("hello"))
	})
	c, err := d.Dial(context.Background())
	require.NoError(t, err)
	defer c.Close(context.Background())
	got, err := c.ReadFrame()
	require.NoError(t, err)
	assert.Equal(t, "hello", string(got))
	_, err = c.ReadFrame()
	assert.ErrorIs(t, err, io.EOF)
}

func TestDialWithDoneContextFails(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewDialer("x", func(transport.Conn) {}).Dial(ctx)
	assert.ErrorIs(t, err, context.Canceled)
}
