package mcpserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTableFindsAndForgetsSessions(t *testing.T) {
	var tb Table[*int]
	a, b := new(int), new(int)
	added := 0
	assert.True(t, tb.Add("a", a, func() { added++ }))
	assert.True(t, tb.Add("b", b, nil))
	assert.Equal(t, 1, added)
	got, ok := tb.Get("a")
	assert.True(t, ok)
	assert.Same(t, a, got)
	assert.False(t, tb.Remove("a", b), "only the session the id names")
	assert.True(t, tb.Remove("a", a))
	_, ok = tb.Get("a")
	assert.False(t, ok)
	assert.Equal(t, []string{"b"}, tb.IDs())
}

func TestClosedTableTakesNoSession(t *testing.T) {
	var tb Table[*int]
	a := new(int)
	tb.Add("a", a, nil)
	assert.Equal(t, []*int{a}, tb.Close(), "the live ones, to end")
	assert.True(t, tb.Closed())
	assert.False(t, tb.Add("b", new(int), func() { t.Error("onAdd ran") }))
}
