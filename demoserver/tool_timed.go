package demoserver

import (
	"strconv"
	"time"

	"github.com/mcpengine/mcpengine/messages"
)

// maxSteps caps the progress tool.
const maxSteps = 1_000_000

// wait waits d or until ctx ends; it reports whether d elapsed.
func (r *request) wait(d time.Duration) bool {
	if d <= 0 {
		return r.ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.ctx.Done():
		return false
	}
}

// toolSleep: {ms} -> waits, then "slept <ms>ms". Cancelled (by
// notifications/cancelled or the session ending) it returns at once and
// nothing is sent.
func toolSleep(r *request, buf []byte) ([]byte, *messages.WireError) {
	var a struct {
		MS *float64 `json:"ms"`
	}
	if ok, msg := decodeArgs(r, &a); !ok {
		return toolError(buf, msg)
	}
	if a.MS == nil || *a.MS < 0 {
		return toolError(buf, "ms must be a non-negative number")
	}
	if !r.wait(time.Duration(*a.MS * float64(time.Millisecond))) {
		return buf, errNoResponse
	}
	return appendTextResult(buf, "slept "+strconv.FormatFloat(*a.MS, 'g', -1, 64)+"ms", nil, false), nil
}

// toolProgress: {steps, intervalMs} -> steps notifications/progress with
// the request's _meta.progressToken (none without a token), intervalMs
// apart, then "completed <steps> steps". Cancellable like sleep.
func toolProgress(r *request, buf []byte) ([]byte, *messages.WireError) {
	var a struct {
		Steps      int     `json:"steps"`
		IntervalMS float64 `json:"intervalMs"`
	}
	if ok, msg := decodeArgs(r, &a); !ok {
		return toolError(buf, msg)
	}
	if a.Steps < 0 || a.Steps > maxSteps || a.IntervalMS < 0 {
		return toolError(buf, "steps must be between 0 and "+strconv.Itoa(maxSteps)+" and intervalMs non-negative")
	}
	interval := time.Duration(a.IntervalMS * float64(time.Millisecond))
	for i := 1; i <= a.Steps; i++ {
		if i > 1 && !r.wait(interval) {
			return buf, errNoResponse
		}
		if r.ctx.Err() != nil {
			return buf, errNoResponse
		}
		if r.progressToken != nil {
			r.s.notify(messages.NotificationProgress, progressParams(r.progressToken, i, a.Steps))
		}
	}
	return appendTextResult(buf, "completed "+strconv.Itoa(a.Steps)+" steps", nil, false), nil
}

func progressParams(token []byte, i, total int) []byte {
	p := make([]byte, 0, 96+len(token))
	p = append(p, `{"progressToken":`...)
	p = append(p, token...)
	p = append(p, `,"progress":`...)
	p = strconv.AppendInt(p, int64(i), 10)
	p = append(p, `,"total":`...)
	p = strconv.AppendInt(p, int64(total), 10)
	p = append(p, `,"message":"step `...)
	p = strconv.AppendInt(p, int64(i), 10)
	p = append(p, " of "...)
	p = strconv.AppendInt(p, int64(total), 10)
	return append(p, `"}`...)
}
