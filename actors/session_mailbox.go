package actors

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// sessionMailbox is the session actor's protoactor mailbox. It runs like
// protoactor's default unbounded one (system messages first, suspension,
// a yield every Throughput messages, a panic escalated to the parent's
// supervisor), but an idle session's mailbox is this struct and a ring of
// four slots, where the default one keeps a locked queue with a ring of
// ten, a lock-free system queue with its stub node and the mailbox struct
// (~330 B per idle session).
//
// The session's messages are never MessageBatch values and its props add
// no mailbox middleware, so neither is supported.
type sessionMailbox struct {
	mu     sync.Mutex
	user   []any // ring, guarded by mu; grows by doubling, never shrinks
	head   int   // index of the oldest user message, guarded by mu
	queued int   // user messages in the ring, guarded by mu
	system []any // guarded by mu; rare (lifecycle), nil when empty

	userMessages atomic.Int32
	sysMessages  atomic.Int32
	running      atomic.Bool // a batch is scheduled or under way
	suspended    atomic.Bool

	invoker    actor.MessageInvoker
	dispatcher actor.Dispatcher
	process    func() // m.processMessages, bound once: a wake allocates nothing
}

// sessionMailboxRing is the user ring's first size: a session's bursts
// are a call, its answer and a notification or two.
const sessionMailboxRing = 4

func newSessionMailbox() actor.Mailbox { return &sessionMailbox{} }

// PostUserMessage implements actor.Mailbox.
func (m *sessionMailbox) PostUserMessage(msg any) {
	m.mu.Lock()
	if m.queued == len(m.user) {
		m.growLocked()
	}
	m.user[(m.head+m.queued)%len(m.user)] = msg
	m.queued++
	m.mu.Unlock()
	m.userMessages.Add(1)
	m.schedule()
}

func (m *sessionMailbox) growLocked() {
	grown := make([]any, max(sessionMailboxRing, 2*len(m.user)))
	for i := range m.queued {
		grown[i] = m.user[(m.head+i)%len(m.user)]
	}
	m.user, m.head = grown, 0
}

func (m *sessionMailbox) popUser() any {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.queued == 0 {
		return nil
	}
	msg := m.user[m.head]
	m.user[m.head] = nil
	m.head = (m.head + 1) % len(m.user)
	m.queued--
	return msg
}

// PostSystemMessage implements actor.Mailbox.
func (m *sessionMailbox) PostSystemMessage(msg any) {
	m.mu.Lock()
	m.system = append(m.system, msg)
	m.mu.Unlock()
	m.sysMessages.Add(1)
	m.schedule()
}

// popSystem takes the oldest system message. It looks at the count
// first, so that a session's every message does not take the lock twice:
// a message whose count is not up yet is run by the next batch, which its
// post's schedule or processMessages starts.
func (m *sessionMailbox) popSystem() any {
	if m.sysMessages.Load() <= 0 {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.system) == 0 {
		return nil
	}
	msg := m.system[0]
	m.system[0] = nil
	if m.system = m.system[1:]; len(m.system) == 0 {
		m.system = nil
	}
	return msg
}

// RegisterHandlers implements actor.Mailbox.
func (m *sessionMailbox) RegisterHandlers(invoker actor.MessageInvoker, dispatcher actor.Dispatcher) {
	m.invoker, m.dispatcher = invoker, dispatcher
	m.process = m.processMessages
}

// Start implements actor.Mailbox; there is nothing to start.
func (m *sessionMailbox) Start() {}

// UserMessageCount implements actor.Mailbox.
func (m *sessionMailbox) UserMessageCount() int { return int(m.userMessages.Load()) }

func (m *sessionMailbox) schedule() {
	if m.running.CompareAndSwap(false, true) {
		m.dispatcher.Schedule(m.process)
	}
}

// processMessages runs batches until nothing is left that it may run; a
// message posted after a batch ended but before running was cleared is
// taken by another batch here, or by the post's own schedule.
func (m *sessionMailbox) processMessages() {
	for {
		m.run()
		m.running.Store(false)
		sys, user := m.sysMessages.Load(), m.userMessages.Load()
		if sys == 0 && (m.suspended.Load() || user == 0) {
			return
		}
		if !m.running.CompareAndSwap(false, true) {
			return // a post scheduled another batch
		}
	}
}

// run processes system messages first, then user messages, until both
// queues are empty or the mailbox is suspended. A panic in the actor is
// escalated to its supervisor, with the message it failed on.
func (m *sessionMailbox) run() {
	var msg any
	defer func() {
		if r := recover(); r != nil {
			m.invoker.EscalateFailure(r, msg)
		}
	}()
	i, t := 0, m.dispatcher.Throughput()
	for {
		if i > t {
			i = 0
			runtime.Gosched()
		}
		i++
		if msg = m.popSystem(); msg != nil {
			m.sysMessages.Add(-1)
			switch msg.(type) {
			case *actor.SuspendMailbox:
				m.suspended.Store(true)
			case *actor.ResumeMailbox:
				m.suspended.Store(false)
			default:
				m.invoker.InvokeSystemMessage(msg)
			}
			continue
		}
		if m.suspended.Load() {
			return
		}
		if msg = m.popUser(); msg == nil {
			return
		}
		m.userMessages.Add(-1)
		m.invoker.InvokeUserMessage(msg)
	}
}
