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
	// SupportedVersions is the server's list from server/discover (modern
	// era only).
	SupportedVersions []string
	// RequestMeta, set in the modern era, is spliced into every request's
	// params._meta; nil in the legacy era.
	RequestMeta *messages.RequestMeta
}

// negotiatedSharer is a Handshake that can hand a session the Negotiated
// other sessions of its server already hold (EraHandshake, through the
// engine's EraCache).
type negotiatedSharer interface {
	share(n *Negotiated) *Negotiated
}

// Modern reports whether the session speaks the stateless era.
func (n *Negotiated) Modern() bool { return n.RequestMeta != nil }

// Handshake is the strategy of the initializing step. The legacy era
// (2024-11-05 … 2025-11-25) sends initialize and notifications/initialized;
// the stateless 2026-07-28 era will send server/discover and carry its facts
// in every request's _meta, as another implementation of this interface,
// without changes to the actor.
type Handshake interface {
	// Request returns the first request of the handshake.
	Request(caps messages.ClientCapabilities) (method string, params any)
	// Accept validates the server's answer. An error fails the connection
	// (a *VersionMismatchError is retried under the restart budget).
	Accept(result messages.RawMessage) (Negotiated, error)
	// Completed returns the notification to send once Accept succeeded, if
	// the era has one.
	Completed() (method string, ok bool)
}

// HandshakePlan is a Handshake shared by many sessions (EraHandshake,
// one per server): each handshake runs on a fresh Handshake of its own,
// which the session keeps only while it runs.
type HandshakePlan interface {
	NewRun() Handshake
}

// LegacyHandshake is the initialize handshake of protocol versions
// 2024-11-05 through 2025-11-25.
type LegacyHandshake struct {
	ClientInfo messages.Implementation
	// Offer is the version offered; default messages.LatestVersion.
	Offer string
	// Strict accepts only Offer (the engine pins one version); otherwise any
	// supported version the server answers with is accepted.
	Strict bool
}

// NewRun implements HandshakePlan: a LegacyHandshake keeps no state
// between its request and its answer, so each run is the plan itself.
func (h *LegacyHandshake) NewRun() Handshake { return h }

func (h *LegacyHandshake) offer() string {
	if h.Offer == "" {
		return messages.LatestVersion
	}
	return h.Offer
}

// Request builds initialize, leaving out capabilities the offered version
// does not define (elicitation arrived in 2025-06-18).
func (h *LegacyHandshake) Request(caps messages.ClientCapabilities) (string, any) {
	v := h.offer()
	if !messages.VersionAtLeast(v, messages.Version20250618) {
		caps.Elicitation = nil
	}
	info := h.ClientInfo
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

// Accept checks the answered version against what the engine speaks.
func (h *LegacyHandshake) Accept(result messages.RawMessage) (Negotiated, error) {
	// Not messages.Unmarshal: a process's first session would wait ~10 ms
	// for sonic to compile InitializeResult's decoder.
	r, err := messages.DecodeInitializeResult(result)
	if err != nil {
		return Negotiated{}, err
	}
	if r.ProtocolVersion == "" {
		return Negotiated{}, errNoVersion
	}
	if !messages.IsSupportedVersion(r.ProtocolVersion) || (h.Strict && r.ProtocolVersion != h.offer()) {
		return Negotiated{}, &mcperr.VersionMismatchError{Offered: h.offer(), Answered: r.ProtocolVersion}
	}
	return Negotiated{
		ProtocolVersion: r.ProtocolVersion,
		ServerInfo:      r.ServerInfo,
		Capabilities:    r.Capabilities,
		Instructions:    r.Instructions,
	}, nil
}

// Completed returns notifications/initialized.
func (h *LegacyHandshake) Completed() (string, bool) {
	return messages.NotificationInitialized, true
}
