package mcpserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func seqs(evs []Event) []int64 {
	out := []int64{}
	for _, e := range evs {
		out = append(out, e.Seq)
	}
	return out
}

func TestEventLogReplaysWhatFollowsAnID(t *testing.T) {
	var l EventLog
	for i := 0; i < 4; i++ {
		l.Append([]byte("x"), i == 3, 10)
	}
	assert.Equal(t, []int64{3, 4}, seqs(l.After(2)))
	assert.Nil(t, l.After(4))
	assert.Equal(t, int64(4), l.Last())
	assert.True(t, l.Undelivered())
	l.MarkSent(4, 10)
	assert.False(t, l.Undelivered())
}

func TestEventLogKeepsUnsentEventsOfAnAnswer(t *testing.T) {
	var l EventLog
	for i := 0; i < 5; i++ {
		l.Append([]byte("x"), false, 2)
	}
	assert.Len(t, l.All(), 5, "an answer's events are dropped only once sent")
	l.MarkSent(4, 2)
	assert.Equal(t, []int64{4, 5}, seqs(l.All()))
}

func TestLossyEventLogIsBounded(t *testing.T) {
	l := EventLog{Lossy: true}
	for i := 0; i < 5; i++ {
		l.Append([]byte("x"), false, 2)
	}
	assert.Equal(t, []int64{4, 5}, seqs(l.All()))
}

func TestEventLogReleaseKeepsTheCount(t *testing.T) {
	var l EventLog
	l.Append(nil, false, 10)
	l.Release()
	require.Empty(t, l.All())
	assert.Equal(t, int64(1), l.Last())
}

func TestNegotiateVersion(t *testing.T) {
	accepted := []string{"2025-06-18", "2025-11-25", "2024-11-05"}
	assert.Equal(t, "2025-06-18", NegotiateVersion("2025-06-18", accepted))
	assert.Equal(t, "2025-11-25", NegotiateVersion("1999-01-01", accepted), "the newest accepted")
}
