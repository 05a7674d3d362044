package streamable

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// The session's caller writes its own request through TryWriteFrames:
// it must return before the server answers (the caller never waits on the
// network), and the answer still arrives.
func TestTryWriteFramesWritesWithoutWaitingForTheAnswer(t *testing.T) {
	s := newServer(t)
	release := make(chan struct{})
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "", messages.Version20250618, func(w http.ResponseWriter, r *http.Request, rec seen) {
		<-release
		echoResult(w, r, rec)
	})

	written, err := c.TryWriteFrames(request(1, "tools/list"))
	require.NoError(t, err)
	assert.True(t, written)
	s.next(t, http.MethodPost) // the server holds the request, unanswered
	close(release)
	m := col.next(t)
	assert.Equal(t, messages.NumberID(1), m.ID)

	require.NoError(t, c.Close(context.Background()))
	written, err = c.TryWriteFrames(request(2, "tools/list"))
	assert.True(t, written, "nothing left to retry on another goroutine")
	assert.ErrorIs(t, err, transport.ErrClosed)
}
