package actors

import (
	"slices"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
)

// recordingInvoker records what the mailbox hands the actor, in order.
type recordingInvoker struct {
	got       []any
	escalated []any
	panicOn   any
}

func (r *recordingInvoker) InvokeSystemMessage(m any) { r.got = append(r.got, m) }
func (r *recordingInvoker) InvokeUserMessage(m any) {
	if m == r.panicOn {
		panic("boom")
	}
	r.got = append(r.got, m)
}
func (r *recordingInvoker) EscalateFailure(_ any, m any) { r.escalated = append(r.escalated, m) }

// heldDispatcher runs a scheduled batch only when told to, on the test's
// goroutine.
type heldDispatcher struct{ pending []func() }

func (d *heldDispatcher) Schedule(fn func()) { d.pending = append(d.pending, fn) }
func (d *heldDispatcher) Throughput() int    { return 3 }
func (d *heldDispatcher) runAll() {
	for len(d.pending) > 0 {
		fn := d.pending[0]
		d.pending = d.pending[1:]
		fn()
	}
}

// TestSessionMailboxKeepsOrderAcrossGrowthAndPutsSystemMessagesFirst:
// user messages come out in the order posted however the ring wrapped and
// grew, system messages before any user message waiting, one batch per
// wake, and nothing is held once drained.
func TestSessionMailboxKeepsOrderAcrossGrowthAndPutsSystemMessagesFirst(t *testing.T) {
	inv, d := &recordingInvoker{}, &heldDispatcher{}
	m := newSessionMailbox().(*sessionMailbox)
	m.RegisterHandlers(inv, d)
	var want []any
	for round := range 3 { // wrap the ring, then outgrow it
		for i := range 3 + 4*round {
			m.PostUserMessage(round*100 + i)
			want = append(want, round*100+i)
		}
		m.PostSystemMessage("sys")
		if len(d.pending) != 1 {
			t.Fatalf("round %d: %d batches scheduled, want 1", round, len(d.pending))
		}
		d.runAll()
		want = slices.Insert(want, len(want)-(3+4*round), any("sys"))
	}
	if !slices.Equal(inv.got, want) {
		t.Fatalf("got %v\nwant %v", inv.got, want)
	}
	if m.UserMessageCount() != 0 || m.system != nil || m.queued != 0 {
		t.Fatalf("left: %d user messages counted, system %v, %d queued", m.UserMessageCount(), m.system, m.queued)
	}
}

// TestSessionMailboxSuspendsAndEscalatesPanics: a suspended mailbox runs
// system messages only, a resumed one the user messages that waited; a
// panicking message is escalated with that message, and the next batch
// goes on with the rest.
func TestSessionMailboxSuspendsAndEscalatesPanics(t *testing.T) {
	inv, d := &recordingInvoker{panicOn: "bad"}, &heldDispatcher{}
	m := newSessionMailbox().(*sessionMailbox)
	m.RegisterHandlers(inv, d)
	m.PostSystemMessage(&actor.SuspendMailbox{})
	m.PostUserMessage("a")
	d.runAll()
	if len(inv.got) != 0 {
		t.Fatalf("a suspended mailbox delivered %v", inv.got)
	}
	m.PostSystemMessage(&actor.ResumeMailbox{})
	d.runAll()
	m.PostUserMessage("bad")
	m.PostUserMessage("b")
	d.runAll()
	if !slices.Equal(inv.got, []any{"a", "b"}) || !slices.Equal(inv.escalated, []any{"bad"}) {
		t.Fatalf("delivered %v, escalated %v", inv.got, inv.escalated)
	}
}
