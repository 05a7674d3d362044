package stdio

import "sync/atomic"

// Guard says how this process keeps its servers and the processes they
// start from outliving them (Linux; elsewhere only the process group
// signals of Close apply). Both defenses are on by default: see SetGuard.
type Guard struct {
	// NoParentDeathSignal leaves out PR_SET_PDEATHSIG: by default every
	// server gets SIGKILL when the thread that started it exits, which in a
	// Go program is when the process exits or is killed (the runtime ends
	// a thread only when a goroutine exits while locked to it with
	// runtime.LockOSThread: a program that does that may see a server
	// started on such a thread killed, and should set this).
	NoParentDeathSignal bool
	// NoSubreaper leaves out PR_SET_CHILD_SUBREAPER: by default the first
	// server started makes this process a child subreaper, so that a
	// server's background children that left its process group (setsid,
	// a daemon's double fork) are re-parented here when the server dies,
	// and Close kills and reaps them. The setting is process-wide: the
	// orphans of every subprocess of this process, not only the engine's
	// servers, then become its children, and those the engine does not
	// recognize as its servers' stay zombies until this process exits.
	// A program that starts daemons of its own should set this.
	NoSubreaper bool
}

var guard atomic.Pointer[Guard]

// SetGuard sets the guard for the servers started from now on. Call it
// before the first server starts: a subreaper, once set, stays set.
func SetGuard(g Guard) { guard.Store(&g) }

func currentGuard() Guard {
	if g := guard.Load(); g != nil {
		return *g
	}
	return Guard{}
}
