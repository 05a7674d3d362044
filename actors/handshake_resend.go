package actors

import "github.com/mcpengine/mcpengine/messages"

// maxResends bounds how often one handshake sends a version again whose
// -32022 listed it among the supported ones. Once is what such a server
// asks for; a second refusal of the same version is a server that will
// not change its mind, and the handshake fails as it would have.
const maxResends = 1

// resendRefused follows a -32022 whose supported list contains the very
// version it refused: the server wants the request again (SEP-2575; the
// conformance suite's request-metadata scenario refuses a client's first
// request this way), so the same request is sent once more, in the same
// era, instead of ending the handshake with "no protocol version in
// common" between two sides that name the same version.
func (h *eraRun) resendRefused(requested string, uv *messages.UnsupportedVersionError) (handshakeStep, bool) {
	if h.resent >= maxResends || !containsVersion(uv.Supported, requested) {
		return handshakeStep{}, false
	}
	h.resent++
	if h.sent == messages.MethodServerDiscover {
		return h.discover(requested, false), true
	}
	return h.initialize(requested), true
}
