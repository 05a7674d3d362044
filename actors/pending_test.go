package actors

import (
	"sort"
	"testing"
)

func TestPendingTableKeepsALoneRequestWithoutAMap(t *testing.T) {
	var p pendingTable
	a := &Call{id: 1}
	p.put(a)
	if p.many != nil || p.len() != 1 || p.get(1) != a || p.get(2) != nil {
		t.Fatalf("one request: many=%v len=%d", p.many, p.len())
	}
	p.delete(2) // not pending: nothing happens
	if p.get(1) != a {
		t.Fatal("deleting another id dropped the lone request")
	}
	p.delete(1)
	if p.len() != 0 || p.get(1) != nil || p.many != nil {
		t.Fatalf("after delete: len=%d", p.len())
	}
}

func TestPendingTableMovesToAMapAtTheSecondRequest(t *testing.T) {
	var p pendingTable
	calls := []*Call{{id: 1}, {id: 2}, {id: 3}}
	for _, c := range calls {
		p.put(c)
	}
	if p.many == nil || p.lone != nil || p.len() != 3 {
		t.Fatalf("three requests: lone=%v len=%d", p.lone, p.len())
	}
	for _, c := range calls {
		if p.get(c.id) != c {
			t.Fatalf("get(%d) lost its call", c.id)
		}
	}
	p.delete(2)
	if p.len() != 2 || p.get(2) != nil {
		t.Fatalf("after delete: len=%d", p.len())
	}
}

func TestPendingTableEachMayDeleteWhatItVisits(t *testing.T) {
	for _, n := range []int{0, 1, 5} {
		var p pendingTable
		for i := 1; i <= n; i++ {
			p.put(&Call{id: int64(i)})
		}
		var seen []int
		p.each(func(id int64, c *Call) {
			if c.id != id {
				t.Fatalf("each gave id %d with call %d", id, c.id)
			}
			seen = append(seen, int(id))
			p.delete(id)
		})
		sort.Ints(seen)
		if len(seen) != n || p.len() != 0 {
			t.Fatalf("n=%d: visited %v, %d left", n, seen, p.len())
		}
	}
}
