package actors

import (
	"errors"

	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/messages"
)

// Negotiated is what the initializing step learned about the server.
type Negotiated struct {
	ProtocolVersion string
	ServerInfo      messages.Implementation
	Capabilities    messages.ServerCapabilities
	Instructions    string
	// supportedVersions is the server's list from server/discover (modern
	// era only).
	supportedVersions []string
	// requestMeta, set in the modern era, is spliced into every request's
	// params._meta; nil in the legacy era.
	requestMeta *messages.RequestMeta
}

// negotiatedSharer is a handshaker that can hand a session the Negotiated
// other sessions of its server already hold (EraHandshake, through the
// engine's EraCache).
type negotiatedSharer interface {
	share(n *Negotiated) *Negotiated
}

// Modern reports whether the session speaks the stateless era.
func (n *Negotiated) Modern() bool { return n.requestMeta != nil }

// handshaker is the strategy of the initializing step. The legacy era
// (2024-11-05 … 2025-11-25) sends initialize and notifications/initialized;
// the stateless 2026-07-28 era will send server/discover and carry its facts
// in every request's _meta, as another implementation of this interface,
// without changes to the actor.
type handshaker interface {
	// Request returns the first request of the handshake.
	request(caps messages.ClientCapabilities) (method string, params any)
	// accept validates the server's answer. An error fails the connection
	// (a *VersionMismatchError is retried under the restart budget).
	accept(result messages.RawMessage) (Negotiated, error)
	// completed returns the notification to send once accept succeeded, if
	// the era has one.
	completed() (method string, ok bool)
}

// handshakePlan is a handshaker shared by many sessions (EraHandshake,
// one per server): each handshake runs on a fresh handshaker of its own,
// which the session keeps only while it runs.
type handshakePlan interface {
	newRun() handshaker
}

// legacyHandshake is the initialize handshake of protocol versions
// 2024-11-05 through 2025-11-25.
type legacyHandshake struct {
	clientInfo messages.Implementation
	// version is the version offered; default messages.LatestVersion.
	version string
	// strict accepts only version (the engine pins one version); otherwise any
	// supported version the server answers with is accepted.
	strict bool
}

// newRun implements handshakePlan: a legacyHandshake keeps no state
// between its request and its answer, so each run is the plan itself.
func (h *legacyHandshake) newRun() handshaker { return h }

func (h *legacyHandshake) offer() string {
	if h.version == "" {
		return messages.LatestVersion
	}
	return h.version
}

// Request builds initialize, leaving out capabilities the offered version
// does not define (elicitation arrived in 2025-06-18).
func (h *legacyHandshake) request(caps messages.ClientCapabilities) (string, any) {
	v := h.offer()
	if !messages.VersionAtLeast(v, messages.Version20250618) {
		caps.Elicitation = nil
	}
	info := h.clientInfo
	if info.Name == "" {
		info = messages.Implementation{Name: "mcpengine", Version: "0.1.0"}
	}
	return messages.MethodInitialize, &messages.InitializeParams{
		ProtocolVersion: v,
		Capabilities:    caps,
		ClientInfo:      info,
	}
}

var errNoVersion = errors.New("mcpengine: initialize result has no protocolVersion")

// accept checks the answered version against what the engine speaks.
func (h *legacyHandshake) accept(result messages.RawMessage) (Negotiated, error) {
	// Not messages.Unmarshal: a process's first session would wait ~10 ms
	// for sonic to compile InitializeResult's decoder.
	r, err := messages.DecodeInitializeResult(result)
	if err != nil {
		return Negotiated{}, err
	}
	if r.ProtocolVersion == "" {
		return Negotiated{}, errNoVersion
	}
	if !messages.IsSupportedVersion(r.ProtocolVersion) || (h.strict && r.ProtocolVersion != h.offer()) {
		return Negotiated{}, &mcperr.VersionMismatchError{Offered: h.offer(), Answered: r.ProtocolVersion}
	}
	return Negotiated{
		ProtocolVersion: r.ProtocolVersion,
		ServerInfo:      r.ServerInfo,
		Capabilities:    r.Capabilities,
		Instructions:    r.Instructions,
	}, nil
}

// completed returns notifications/initialized.
func (h *legacyHandshake) completed() (string, bool) {
	return messages.NotificationInitialized, true
}
