package streamable

import (
	"net/http"
	"testing"
	"time"

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

// closeCount is an answer body that counts its closes.
type closeCount struct{ closed chan struct{} }

func (b *closeCount) Close() error {
	close(b.closed) // a second close would panic: the watch closes once
	return nil
}

// A watched body is closed when its post's context ends, and at once when
// it was watched after that; an unwatched one is not touched, so the
// context, handed back, closes no body of a later post.
func TestPostContextClosesTheWatchedBody(t *testing.T) {
	p := &post{}
	p.takeCtx()
	unwatched := &closeCount{closed: make(chan struct{})}
	p.pc.watchBody(unwatched)
	p.pc.unwatchBody()
	watched := &closeCount{closed: make(chan struct{})}
	p.pc.watchBody(watched)
	p.cancel()
	select {
	case <-watched.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the watched body was not closed when the context ended")
	}
	late := &closeCount{closed: make(chan struct{})}
	p.pc.watchBody(late)
	select {
	case <-late.closed:
	default:
		t.Fatal("a body watched after the context ended was not closed at once")
	}
	p.pc.unwatchBody()
	select {
	case <-unwatched.closed:
		t.Fatal("an unwatched body was closed")
	default:
	}
}
