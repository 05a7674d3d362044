package streamable

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpengine/mcpengine/messages"
)

func TestInflightKeepsALoneRequestWithoutAMap(t *testing.T) {
	var in inflight
	pend := []pending{{id: messages.NumberID(1)}}
	in.add(pend)
	assert.Nil(t, in.many)
	assert.Same(t, &pend[0], in.get(messages.NumberID(1)))
	assert.Nil(t, in.get(messages.NumberID(2)))
	assert.Nil(t, in.get(messages.StringID("1")), "a string id is another id")

	in.delete(messages.NumberID(2)) // not in flight: nothing happens
	assert.Same(t, &pend[0], in.get(messages.NumberID(1)))
	in.delete(messages.NumberID(1))
	assert.Nil(t, in.get(messages.NumberID(1)))
	assert.Equal(t, inflight{}, in)
}

func TestInflightMovesToAMapAtTheSecondRequestAndDropsItOnceEmpty(t *testing.T) {
	var in inflight
	one := []pending{{id: messages.NumberID(1)}}
	three := []pending{{id: messages.NumberID(2)}, {id: messages.StringID("x")}, {id: messages.NumberID(4)}}
	in.add(one)
	in.add(three)
	assert.Nil(t, in.lone)
	assert.Len(t, in.many, 4)
	assert.Same(t, &one[0], in.get(messages.NumberID(1)))
	for i := range three {
		assert.Same(t, &three[i], in.get(three[i].id))
	}
	in.delete(messages.NumberID(1))
	for i := range three {
		in.delete(three[i].id)
	}
	assert.Equal(t, inflight{}, in, "emptied: no map kept")
}

func TestInflightALaterRequestOfTheSameIDTakesThePlace(t *testing.T) {
	for _, others := range []int{0, 1} { // in the slot, in the map
		var in inflight
		if others > 0 {
			in.add([]pending{{id: messages.NumberID(9)}})
		}
		first := []pending{{id: messages.NumberID(1)}}
		later := []pending{{id: messages.NumberID(1)}}
		in.add(first)
		in.add(later)
		assert.Same(t, &later[0], in.get(messages.NumberID(1)))
		in.forget(&first[0]) // replaced: forgetting it leaves the later one
		assert.Same(t, &later[0], in.get(messages.NumberID(1)))
		in.forget(&later[0])
		assert.Nil(t, in.get(messages.NumberID(1)))
	}
}

func TestLivePostsKeepALonePostWithoutAMap(t *testing.T) {
	var s livePosts
	a, b, c := &post{}, &post{}, &post{}
	s.add(a)
	assert.Nil(t, s.many)
	assert.ElementsMatch(t, []*post{a}, livePostsOf(&s))
	s.remove(b) // not live: nothing happens
	assert.ElementsMatch(t, []*post{a}, livePostsOf(&s))

	s.add(b)
	s.add(c)
	assert.Nil(t, s.lone)
	assert.ElementsMatch(t, []*post{a, b, c}, livePostsOf(&s))
	s.remove(b)
	assert.ElementsMatch(t, []*post{a, c}, livePostsOf(&s))
	s.remove(a)
	s.remove(c)
	assert.Equal(t, livePosts{}, s, "emptied: no map kept")
	assert.Empty(t, livePostsOf(&s))
}

func livePostsOf(s *livePosts) []*post {
	var ps []*post
	s.each(func(p *post) { ps = append(ps, p) })
	return ps
}
