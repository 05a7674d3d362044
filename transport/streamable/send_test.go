package streamable

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/internal/httpcore"
)

// The session's caller hands its own request over through Send: it must
// return before the server answers (the caller never waits on the
// network), and the answer still arrives.
func TestSendReturnsWithoutWaitingForTheAnswer(t *testing.T) {
	s := newServer(t)
	release := make(chan struct{})
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "", messages.Version20250618, func(w http.ResponseWriter, r *http.Request, rec seen) {
		<-release
		echoResult(w, r, rec)
	})

	require.NoError(t, c.Send(httpcore.MessageOf(request(1, "tools/list"))))
	s.next(t, http.MethodPost) // the server holds the request, unanswered
	close(release)
	m := col.next(t)
	assert.Equal(t, messages.NumberID(1), m.ID)

	require.NoError(t, c.Close(context.Background()))
	assert.ErrorIs(t, c.Send(httpcore.MessageOf(request(2, "tools/list"))), transport.ErrClosed)
}
