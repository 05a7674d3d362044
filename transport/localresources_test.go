package transport

import (
	"errors"
	"net"
	"os"
	"syscall"
	"testing"
)

// A dial that found no descriptor is this process's failure: typed, and
// not a server that cannot be reached.
func TestLocalResourcesAreNotUnreachable(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM} {
		err := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", errno)}
		got, ok := LocalResources(err)
		if !ok || got != errno {
			t.Errorf("LocalResources(%v) = %v, %v", err, got, ok)
		}
		if Unreachable(err) {
			t.Errorf("Unreachable(%v) = true", err)
		}
		f := RequestFailure{Reason: "dial tcp: socket: " + errno.Error(), LocalResources: ErrnoName(errno)}
		le := f.LocalResourceError()
		if le == nil || !errors.Is(le, ErrLocalResources) || !errors.Is(le, errno) {
			t.Errorf("RequestFailure %+v gives %v", f, le)
		}
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	if _, ok := LocalResources(refused); ok || !Unreachable(refused) {
		t.Errorf("a refused connection is the server's absence, not local exhaustion")
	}
	if (RequestFailure{Reason: "HTTP 503"}).LocalResourceError() != nil {
		t.Errorf("a failure without LocalResources is no local error")
	}
}
