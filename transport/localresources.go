package transport

import (
	"errors"
	"syscall"
)

// ErrLocalResources means this process ran out of something of its own
// (file descriptors, kernel buffer memory) while opening or using a
// connection: the server is not at fault and may never have seen the
// request. It is matched by every *LocalResourceError.
var ErrLocalResources = errors.New("mcpengine/transport: out of local resources")

// LocalResourceError is a failure of this process to get a descriptor or
// buffer memory (EMFILE, ENFILE, ENOBUFS, ENOMEM) while dialing or using
// a connection. errors.Is matches ErrLocalResources and the errno.
// Nothing was sent, so it is safe to retry once resources are freed.
type LocalResourceError struct {
	// Op says what failed ("dial tcp 127.0.0.1:8080").
	Op string
	// Errno is the system's error.
	Errno syscall.Errno
}

func (e *LocalResourceError) Error() string {
	return "mcpengine/transport: out of local resources: " + e.Op + ": " + e.Errno.Error()
}

func (e *LocalResourceError) Unwrap() []error { return []error{ErrLocalResources, e.Errno} }

// SafeToRetry is true: the request did not leave this process.
func (e *LocalResourceError) SafeToRetry() bool { return true }

// ErrorType is the error's error.type in telemetry.
func (e *LocalResourceError) ErrorType() string { return "local_resources" }

// localErrnos are the errors that mean the process, not the peer, ran out.
var localErrnos = []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM}

// LocalResources returns the errno in err's chain that says this process
// ran out of descriptors or buffer memory, if there is one.
func LocalResources(err error) (syscall.Errno, bool) {
	if err == nil {
		return 0, false
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return 0, false
	}
	for _, e := range localErrnos {
		if errno == e {
			return errno, true
		}
	}
	return 0, false
}

// ErrnoName is the symbolic name of one of the local-resource errnos
// ("EMFILE"), as carried by RequestFailure.LocalResources; "" for others.
func ErrnoName(e syscall.Errno) string {
	switch e {
	case syscall.EMFILE:
		return "EMFILE"
	case syscall.ENFILE:
		return "ENFILE"
	case syscall.ENOBUFS:
		return "ENOBUFS"
	case syscall.ENOMEM:
		return "ENOMEM"
	}
	return ""
}

// ErrnoByName is ErrnoName's inverse.
func ErrnoByName(name string) (syscall.Errno, bool) {
	for _, e := range localErrnos {
		if ErrnoName(e) == name {
			return e, true
		}
	}
	return 0, false
}
