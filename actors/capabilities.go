package actors

import (
	"github.com/mcpengine/mcpengine/messages"

	"github.com/mcpengine/mcpengine/mcperr"
)

// checkCapability refuses, before it is sent, a request that the
// negotiated protocol version does not have or that the server's declared
// capabilities rule out (servers answer such requests with -32601 at
// best), as the method table says. Methods the table does not know
// (extensions) are sent as they are.
func checkCapability(method string, neg *Negotiated) error {
	spec, ok := messages.LookupMethod(method)
	if !ok || spec.From&messages.FromClient == 0 {
		return nil
	}
	if !spec.InVersion(neg.ProtocolVersion) {
		return &mcperr.MethodNotInVersionError{Method: method, Version: neg.ProtocolVersion}
	}
	if need := spec.NeedsCapability(neg.ProtocolVersion); need != "" && !neg.Capabilities.Has(need) {
		return &mcperr.CapabilityError{Method: method, Capability: need}
	}
	return nil
}
