package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
)

// ProtocolLine says which protocol versions the sessions negotiated:
// "2026-07-28 (modern era)", or each version with its connects when they
// differ. Empty when no session connected.
func ProtocolLine(r *loadgen.Result) string {
	switch len(r.Protocols) {
	case 0:
		return ""
	case 1:
		p := r.Protocols[0]
		return fmt.Sprintf("%s (%s era)", p.Version, p.Era)
	}
	parts := make([]string, len(r.Protocols))
	for i, p := range r.Protocols {
		parts[i] = fmt.Sprintf("%s (%s era) × %d connects", p.Version, p.Era, p.Connects)
	}
	return strings.Join(parts, ", ")
}

// handshakeName names what a connect's handshake was: initialize in the
// handshake era, server/discover in 2026-07-28.
// SupervisionLine is the engine's recovery during the run, in words.
func SupervisionLine(r *loadgen.Result) string {
	s := r.Supervision
	if s.Reconnects == 0 && s.Restarts == 0 && s.NotReadyS == 0 {
		return "no session lost its connection"
	}
	return fmt.Sprintf("%d reconnects by the engine (%d restarts), %s not ready in all sessions together",
		s.Reconnects, s.Restarts, loadgen.FormatDuration(time.Duration(s.NotReadyS*float64(time.Second))))
}

// CoresText says what the client's core count is: GOMAXPROCS and the CPUs
// the OS gives the process, summed over a distributed run's members.
func CoresText(r *loadgen.Result) string {
	c := r.Client
	s := fmt.Sprintf("GOMAXPROCS %d", c.Cores)
	if c.CPUs > 0 {
		s += fmt.Sprintf(", %d CPUs usable", c.CPUs)
	}
	if len(r.Members) > 0 {
		s += fmt.Sprintf(", summed over %d members", len(r.Members))
	}
	return s
}

func handshakeName(r *loadgen.Result) string {
	if len(r.Protocols) == 1 && r.Protocols[0].Era == "modern" {
		return "discover"
	}
	return "initialize"
}
