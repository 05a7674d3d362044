package loadgen

// ConnectsSoFar are a run's connects up to an interval, in Progress with
// Config.MethodHistograms: a caller that merges runs (a distributed run's
// coordinator) keeps those of a member lost before its Result came.
type ConnectsSoFar struct {
	Count, Failed int64
	// Connect (the transport phases timed apart) and Handshake are the
	// run's histograms so far, as HDRDump holds them.
	Connect, Handshake string
}

// connectsSoFar is what the sampler reports of the connects; it encodes
// the histograms again only when a connect was made since the last
// interval (most intervals of a run without churn make none).
func (s *sampler) connectsSoFar() ConnectsSoFar {
	r := s.r
	r.connMu.Lock()
	defer r.connMu.Unlock()
	if r.connects == s.conns.Count && r.connectFails == s.conns.Failed {
		return s.conns
	}
	if s.connScratch == nil {
		s.connScratch = NewHistogram()
	}
	s.conns = ConnectsSoFar{Count: r.connects, Failed: r.connectFails,
		Connect: encodePacked(r.dialHist, s.connScratch), Handshake: encodePacked(r.handshake, s.connScratch)}
	return s.conns
}
