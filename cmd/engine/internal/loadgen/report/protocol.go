package report

import (
	"fmt"
	"strings"

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
func handshakeName(r *loadgen.Result) string {
	if len(r.Protocols) == 1 && r.Protocols[0].Era == "modern" {
		return "discover"
	}
	return "initialize"
}
