package streamable

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

// The contexts of POSTs that ended are reused; one that was aborted, or
// cancelled by Close, never is: the requests after it are sent and
// answered, none fails at once with a context already cancelled.
func TestRequestsAfterAnAbortedOneAreAnswered(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "sess", messages.Version20251125, func(w http.ResponseWriter, r *http.Request, rec seen) {
		if rec.Msg.Method == "slow" {
			<-r.Context().Done()
			return
		}
		echoResult(w, r, rec)
	})
	for round := range 3 {
		id := int64(100 * (round + 1))
		require.NoError(t, c.WriteFrames(request(id, "slow")))
		s.next(t, http.MethodPost)
		require.NoError(t, c.WriteFrames(cancelled(id)))
		eventually(t, func() bool { return c.sched.Running() == 0 }, "the aborted POST ends")
		for i := range int64(20) {
			require.NoError(t, c.WriteFrames(request(id+1+i, "tools/list")))
			m := col.next(t)
			assert.Equal(t, messages.NumberID(id+1+i), m.ID)
			assert.Nil(t, m.Error, "answered, not failed")
		}
	}

	c2, col2 := dial(t, s, &Dialer{})
	require.NoError(t, c2.WriteFrames(request(1, "slow")))
	s.next(t, http.MethodPost)
	require.NoError(t, c2.Close(t.Context()))
	for i := range int64(20) {
		require.NoError(t, c.WriteFrames(request(1000+i, "tools/list")))
		m := col.next(t)
		assert.Equal(t, messages.NumberID(1000+i), m.ID)
		assert.Nil(t, m.Error, "answered, not failed")
	}
	assert.Empty(t, col2.frames)
}
