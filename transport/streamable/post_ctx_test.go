package streamable

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport/httpx"
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

// longLivedRecorder answers every request with 202 Accepted and records,
// by Mcp-Method, whether its context was marked httpx.LongLived.
type longLivedRecorder struct{ marked chan [2]string }

func (r longLivedRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.marked <- [2]string{req.Header.Get("Mcp-Method"), fmt.Sprint(httpx.IsLongLived(req.Context()))}
	return &http.Response{StatusCode: http.StatusAccepted, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
}

// A 2026-07-28 subscriptions/listen POST goes out marked long-lived (its
// answer stream stays open while the session listens); the POSTs after it,
// which may reuse its pooled context, are not marked.
func TestOnlyTheListenPOSTIsMarkedLongLived(t *testing.T) {
	rec := longLivedRecorder{marked: make(chan [2]string, 4)}
	d := &Dialer{URL: "http://example.invalid/mcp", Client: &http.Client{Transport: rec}}
	c, err := d.Dial(t.Context())
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	col := newCollector()
	c.(*conn).Start(col.deliver, col.fail)

	modern := func(id int64, method string) []byte {
		params := fmt.Sprintf(`{"_meta":{%q:%q}}`, messages.MetaProtocolVersion, messages.Version20260728)
		return messages.AppendRequest(nil, messages.NumberID(id), method, []byte(params))
	}
	for i, method := range []string{messages.MethodSubscriptionsListen, messages.MethodToolsList, messages.MethodToolsList} {
		require.NoError(t, c.WriteFrames(modern(int64(i+1), method)))
		select {
		case got := <-rec.marked:
			assert.Equal(t, [2]string{method, fmt.Sprint(method == messages.MethodSubscriptionsListen)}, got)
		case <-time.After(waitFor):
			t.Fatalf("POST %d was not sent", i+1)
		}
	}
}
