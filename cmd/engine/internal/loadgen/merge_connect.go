package loadgen

import "github.com/HdrHistogram/hdrhistogram-go"

// connectMerge merges the members' connect (or handshake) histograms,
// and remembers whether every member that timed some sent its histogram:
// only then are the merged percentiles the run's.
type connectMerge struct {
	h       *hdrhistogram.Histogram
	missing bool
}

func newConnectMerge() *connectMerge { return &connectMerge{h: NewHistogram()} }

// add merges one member's histogram; timed says the member timed some
// (so an empty enc means it did not send them).
func (c *connectMerge) add(timed bool, enc string) error {
	if !timed {
		return nil
	}
	if enc == "" {
		c.missing = true
		return nil
	}
	h, err := DecodeHDR(enc)
	if err != nil {
		return err
	}
	c.h.Merge(h)
	return nil
}

// summary is the merged histogram's summary, when it is the run's.
func (c *connectMerge) summary() (Latency, bool) {
	if c.missing || c.h.TotalCount() == 0 {
		return Latency{}, false
	}
	return Summarize(c.h), true
}
