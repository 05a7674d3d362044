package cluster

import (
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// TestARequestRelatedToNoCallGoesToALiveWatcherOfTheLatestServingMember:
// a server request related to no call skips watchers whose lease lapsed
// (a dead member's), prefers the member whose serving call came last,
// then this member, then the first by address.
func TestARequestRelatedToNoCallGoesToALiveWatcherOfTheLatestServingMember(t *testing.T) {
	now := time.Now()
	const self, a, b, dead = "10.0.0.5:4000", "10.0.0.1:4000", "10.0.0.9:4000", "10.0.0.0:4000"
	watchers := func(addrs ...string) map[string]*watcher {
		ws := map[string]*watcher{}
		for _, addr := range addrs {
			renewed := now
			if addr == dead {
				renewed = now.Add(-2 * watchLease)
			}
			ws[addr+"/w"] = &watcher{pid: actor.NewPID(addr, "w"), renewed: renewed}
		}
		return ws
	}
	for _, c := range []struct {
		name        string
		watchers    []string
		lastServing string
		want        string // "" for none
	}{
		{"none", nil, "", ""},
		{"only a lapsed lease", []string{dead}, dead, ""},
		{"the latest serving member", []string{a, b, self}, b, b},
		{"this member when the latest serving one watches no more", []string{a, self}, b, self},
		{"this member before a lower address", []string{dead, a, self}, "", self},
		{"the first live one by address", []string{dead, b, a}, "", a},
		{"a lapsed latest serving member is skipped", []string{dead, b}, dead, b},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := &sessionGrain{watchers: watchers(c.watchers...), lastServing: c.lastServing}
			w := g.watcherForRequest(now, self)
			got := ""
			if w != nil {
				got = w.pid.Address
			}
			if got != c.want {
				t.Fatalf("picked %q, want %q", got, c.want)
			}
		})
	}
}
