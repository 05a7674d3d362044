package mcpserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestLeaseEndsAnIdleSession(t *testing.T) {
	idle := make(chan struct{})
	l := NewLease(time.Millisecond, func() { close(idle) })
	assert.True(t, l.Hold())
	l.Release() // the last request arms the timeout
	<-idle
	assert.True(t, l.End())
	assert.False(t, l.End(), "ended once")
	assert.False(t, l.Hold(), "an ended lease takes no request")
}

func TestLeaseNeverExpiresWhileHeld(t *testing.T) {
	fired := make(chan struct{}, 1)
	l := NewLease(time.Nanosecond, func() { fired <- struct{}{} })
	l.Hold()
	l.Hold()
	l.Release() // one request still in progress: no timer
	assert.Nil(t, l.timer)
	l.Release()
	<-fired
	l.End()
}

func TestLeaseWithoutTimeoutNeverExpires(t *testing.T) {
	l := NewLease(0, func() { t.Error("expired") })
	l.Hold()
	l.Release()
	assert.Nil(t, l.timer)
}
