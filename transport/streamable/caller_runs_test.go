package streamable

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

// A held request's POST is not started when its frame is written; its
// caller runs it, and RunRequest returns with the answer delivered.
func TestHeldRequestRunsOnItsCallersGoroutine(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "sess", messages.Version20251125, echoResult)
	eventually(t, func() bool { return c.sched.Running() == 0 }, "the initialize POST's goroutine ends")

	c.HoldRequest(messages.NumberID(1))
	require.NoError(t, c.WriteFrames(request(1, "tools/list")))
	assert.Zero(t, c.sched.Running(), "no goroutine started for the held request")
	require.True(t, c.RunRequest(messages.NumberID(1)))
	require.Len(t, col.frames, 1, "the answer was delivered before RunRequest returned")
	assert.Equal(t, messages.NumberID(1), col.next(t).ID)
	assert.Zero(t, c.sched.Running())
	assert.False(t, c.RunRequest(messages.NumberID(1)), "a request runs once")
}

// A caller that asks before the frame is written, or lets its request go,
// leaves it to the connection's goroutines.
func TestHeldRequestNotRunByItsCallerGoesAsAnyOther(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "sess", messages.Version20251125, echoResult)

	c.HoldRequest(messages.NumberID(2))
	assert.False(t, c.RunRequest(messages.NumberID(2)), "not written yet")
	require.NoError(t, c.WriteFrames(request(2, "tools/list")))
	assert.Equal(t, messages.NumberID(2), col.next(t).ID)

	c.HoldRequest(messages.NumberID(3))
	require.NoError(t, c.WriteFrames(request(3, "tools/list")))
	c.ReleaseRequest(messages.NumberID(3))
	assert.Equal(t, messages.NumberID(3), col.next(t).ID)
	eventually(t, func() bool { return c.sched.Running() == 0 }, "the POSTs end")
	assert.Empty(t, c.holds.r, "nothing stays held")
}

// A POST running on its caller's goroutine against a server that never
// answers ends when the call is aborted, with no answer made up for it;
// one held but not yet run is dropped the same way.
func TestAbortedHeldRequestEndsAtOnceWithoutAnAnswer(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "sess", messages.Version20251125, func(w http.ResponseWriter, r *http.Request, rec seen) {
		if rec.Msg.Method == "slow" {
			<-r.Context().Done()
			return
		}
		echoResult(w, r, rec)
	})

	c.HoldRequest(messages.NumberID(4))
	require.NoError(t, c.WriteFrames(request(4, "slow")))
	ran := make(chan bool)
	go func() { ran <- c.RunRequest(messages.NumberID(4)) }() // owned by the test: returns once aborted
	assert.Equal(t, "slow", s.next(t, http.MethodPost).Msg.Method)
	c.AbortRequest(messages.NumberID(4))
	assert.True(t, <-ran)

	c.HoldRequest(messages.NumberID(5))
	require.NoError(t, c.WriteFrames(request(5, "slow")))
	c.AbortRequest(messages.NumberID(5))
	assert.False(t, c.RunRequest(messages.NumberID(5)))
	eventually(t, func() bool { return c.sched.Running() == 0 }, "the aborted POST ends")

	require.NoError(t, c.WriteFrames(request(6, "tools/list")))
	assert.Equal(t, messages.NumberID(6), col.next(t).ID, "no answer came for 4 and 5 before")
}
