package demoserver

import (
	"net/http"
	"sync/atomic"
)

// failCounter implements FailNth and FailEvery over the request POSTs of
// one handler, and FailGets over its GET streams.
type failCounter struct {
	posts atomic.Int64
	gets  atomic.Int64
}

// failPost counts one request POST and returns the status to fail it
// with, or 0.
func (f *failCounter) failPost(o *HTTPOptions) int {
	if o.FailNth <= 0 && o.FailEvery <= 0 {
		return 0
	}
	n := f.posts.Add(1)
	if n == int64(o.FailNth) || (o.FailEvery > 0 && n%int64(o.FailEvery) == 0) {
		return o.FailStatus
	}
	return 0
}

// failGet counts one GET opening a standalone stream and returns the
// status to fail it with, or 0.
func (f *failCounter) failGet(o *HTTPOptions) int {
	if o.FailGets <= 0 {
		return 0
	}
	if f.gets.Add(1) <= int64(o.FailGets) {
		return o.FailStatus
	}
	return 0
}

// injectedFailure answers a failure injected by a fault knob.
func injectedFailure(w http.ResponseWriter, status int) {
	http.Error(w, "demoserver: injected failure ("+http.StatusText(status)+")", status)
}
