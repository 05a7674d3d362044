package mcpserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEventIDsNameTheirStream(t *testing.T) {
	id := EventID(7, 42)
	s, seq, ok := ParseEventID(id)
	require.True(t, ok)
	assert.Equal(t, 7, s)
	assert.Equal(t, int64(42), seq)
	for _, bad := range []string{"", "7", "a-1", "1-b", "-1-2", "1--2"} {
		_, _, ok := ParseEventID(bad)
		assert.False(t, ok, bad)
	}
}
