package streamable

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

// An answer whose id is the request's number sent back as a string is
// delivered as it came (the session fails the request with a protocol
// error), once, and no "held no response" failure follows it (issue 16.5;
// internal/faultsuite TestHTTPBrokenAnswer).
func TestANumberIDSentBackAsAStringIsDeliveredNotDropped(t *testing.T) {
	s := newServer(t)
	c, col := dial(t, s, &Dialer{})
	initialize(t, s, c, col, "", messages.Version20251125, func(w http.ResponseWriter, _ *http.Request, rec seen) {
		writeJSON(w, result(messages.StringID(rec.Msg.ID.String()), `{}`))
	})
	require.NoError(t, c.WriteFrames(request(7, "x")))
	m := col.next(t)
	assert.Equal(t, messages.StringID("7"), m.ID, "the frame as the server sent it")
	assert.NotNil(t, m.Result)
	require.NoError(t, c.WriteFrames(request(8, "x")))
	m = col.next(t)
	assert.Equal(t, messages.StringID("8"), m.ID, "nothing else came for request 7 meanwhile")
}
