package actors

import (
	"errors"
	"fmt"
	"time"

	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/messages"
)

// steppedHandshake is a handshake of several round trips: each answer
// (result or error) decides the next request, until the handshake is done
// or failed. The actor runs it when the configured handshaker implements it
// (EraHandshake); request/accept/completed remain for single-step ones.
type steppedHandshake interface {
	handshaker
	// begin starts a handshake on a new connection.
	begin(caps messages.ClientCapabilities) handshakeStep
	// step takes the answer to the last step's request.
	step(result messages.RawMessage, err error) handshakeStep
}

// handshakeStep is what a steppedHandshake wants next: a request to send
// (method set), or the end, negotiated (done) or failed (err).
type handshakeStep struct {
	method string
	params any
	// meta is spliced into the request's params._meta (modern requests).
	meta *messages.RequestMeta
	// timeout bounds this request; zero means the session's InitTimeout.
	timeout time.Duration
	// probe marks the era probe: its silence is an answer (a legacy
	// server), counted neither as a timeout nor as a late response.
	probe bool

	done *Negotiated
	err  error
}

// maxHandshakeSteps bounds the requests of one handshake: a probe, a
// version change, and the request in the chosen version, with room for
// one more change of mind.
const maxHandshakeSteps = 5

// EraHandshake negotiates the era and version per server. With nothing
// pinned it probes with server/discover in the newest modern version (the
// stateless 2026-07-28 era has no handshake; discover tells the era, the
// versions and the capabilities in one round trip) and falls back to the
// legacy initialize on any answer that is not a recognized modern error
// (method not found, invalid params, an HTTP 400/404/405 without a modern
// error body, no answer in time), as the 2026-07-28 transports ask. An
// unsupported-version error (-32022), to discover or to initialize, moves
// to the newest version of its supported list the engine speaks, in
// whichever era that is; when there is none the handshake fails with a
// permanent *NoCommonVersionError. What it settles on is kept in Cache
// under Key, so the next handshake with the same server starts there.
//
// One EraHandshake serves every session of a server (an engine makes one
// per server key): it holds settings only. The state of a handshake under
// way is an eraRun (newRun), which lives on its session actor until the
// handshake ends, so an idle session carries neither.
type EraHandshake struct {
	ClientInfo messages.Implementation
	// Pin is a version to speak and no other ("" negotiates). It must be
	// a known version (messages.IsKnownVersion); the engine checks it
	// before any traffic.
	Pin string
	// Strict, with a legacy Pin, refuses any other answered version.
	Strict bool
	// Cache and Key remember the outcome per server; both optional.
	Cache *EraCache
	Key   string
	// ProbeTimeout bounds the discover probe of a server whose era is
	// unknown: a legacy server may never answer it. Zero means the
	// session's InitTimeout.
	ProbeTimeout time.Duration
}

// eraRun is one handshake of an EraHandshake: the requests it sent and
// what it learned so far.
type eraRun struct {
	*EraHandshake
	caps    messages.ClientCapabilities
	steps   int
	sent    string // method of the request awaiting its answer
	version string // version of that request
	probing bool   // the request is the probe of an unknown era
	legacy  bool   // the outcome is legacy-era (notifications/initialized)
	resent  int    // versions sent again because their -32022 listed them (handshake_resend.go)
}

var (
	_ handshakePlan    = (*EraHandshake)(nil)
	_ steppedHandshake = (*eraRun)(nil)
)

// newRun implements handshakePlan.
func (h *EraHandshake) newRun() handshaker { return &eraRun{EraHandshake: h} }

func (h *EraHandshake) share(n *Negotiated) *Negotiated { return h.Cache.share(h.Key, n) }

var errNotDiscoverResult = errors.New("the answer to server/discover lists no supportedVersions")

// begin implements steppedHandshake.
func (h *eraRun) begin(caps messages.ClientCapabilities) handshakeStep {
	h.caps, h.steps, h.legacy = caps, 0, false
	switch {
	case h.Pin != "" && messages.IsModernVersion(h.Pin):
		return h.discoverOrCached(h.Pin)
	case h.Pin != "":
		return h.initialize(h.Pin)
	}
	if v := h.Cache.get(h.Key); v != "" {
		if messages.IsModernVersion(v) {
			return h.discoverOrCached(v)
		}
		return h.initialize(v)
	}
	return h.discover(messages.LatestModernVersion, true)
}

// step implements steppedHandshake.
func (h *eraRun) step(result messages.RawMessage, err error) handshakeStep {
	if h.steps >= maxHandshakeSteps {
		return handshakeStep{err: fmt.Errorf("mcpengine: protocol negotiation did not settle in %d requests", maxHandshakeSteps)}
	}
	if h.sent == messages.MethodServerDiscover {
		return h.afterDiscover(result, err)
	}
	return h.afterInitialize(result, err)
}

func (h *eraRun) afterDiscover(result messages.RawMessage, err error) handshakeStep {
	requested := h.version
	if err != nil {
		if uv, ok := messages.AsUnsupportedVersion(err); ok {
			h.Cache.forget(h.Key, requested)
			return h.moveTo(requested, uv)
		}
		if isModernRefusal(err) {
			// A modern server refusing what the engine sent: a defect no
			// fallback cures.
			return handshakeStep{err: err}
		}
		if h.Pin != "" {
			return handshakeStep{err: &mcperr.NotModernError{Pinned: h.Pin, Cause: err}}
		}
		// Not a modern answer: a legacy server (or one that forgot the
		// era it was cached with).
		h.Cache.forget(h.Key, requested)
		return h.initialize(messages.LatestVersion)
	}
	// Not messages.Unmarshal: a process's first modern session would wait
	// for sonic to compile DiscoverResult's decoder.
	r, err := messages.DecodeDiscoverResult(result)
	if err != nil || len(r.SupportedVersions) == 0 {
		// Not a DiscoverResult (which must list versions): a legacy
		// server that answers whatever it is asked.
		if h.Pin != "" {
			return handshakeStep{err: &mcperr.NotModernError{Pinned: h.Pin, Cause: errNotDiscoverResult}}
		}
		h.Cache.forget(h.Key, requested)
		return h.initialize(messages.LatestVersion)
	}
	version := requested
	if !containsVersion(r.SupportedVersions, requested) {
		if h.Pin != "" {
			return handshakeStep{err: &mcperr.NoCommonVersionError{Requested: requested, Supported: r.SupportedVersions}}
		}
		version = messages.NewestCommonVersion(r.SupportedVersions, true)
		if version == "" {
			if legacy := messages.NewestCommonVersion(r.SupportedVersions, false); legacy != "" {
				return h.initialize(legacy)
			}
			return handshakeStep{err: &mcperr.NoCommonVersionError{Requested: requested, Supported: r.SupportedVersions}}
		}
	}
	h.Cache.put(h.Key, version)
	h.Cache.putDiscover(h.Key, version, &r, time.Now())
	return h.settled(version, &r)
}

// discoverOrCached settles on version from a fresh shared discover answer
// of the same server, or asks the server.
func (h *eraRun) discoverOrCached(version string) handshakeStep {
	if r, ok := h.Cache.freshDiscover(h.Key, version, time.Now()); ok {
		return h.settled(version, r)
	}
	return h.discover(version, false)
}

func (h *eraRun) settled(version string, r *messages.DiscoverResult) handshakeStep {
	meta, err := h.meta(version)
	if err != nil {
		return handshakeStep{err: err}
	}
	return handshakeStep{done: &Negotiated{
		ProtocolVersion:   version,
		ServerInfo:        r.ServerInfo(),
		Capabilities:      r.Capabilities,
		Instructions:      r.Instructions,
		supportedVersions: r.SupportedVersions,
		requestMeta:       meta,
	}}
}

func (h *eraRun) afterInitialize(result messages.RawMessage, err error) handshakeStep {
	offered := h.version
	if err != nil {
		if uv, ok := messages.AsUnsupportedVersion(err); ok {
			h.Cache.forget(h.Key, offered)
			return h.moveTo(offered, uv)
		}
		return handshakeStep{err: err}
	}
	lh := legacyHandshake{clientInfo: h.ClientInfo, version: offered, strict: h.Strict && h.Pin != ""}
	neg, err := lh.accept(result)
	if err != nil {
		var vm *mcperr.VersionMismatchError
		if errors.As(err, &vm) && messages.IsModernVersion(vm.Answered) && h.Pin == "" {
			// A server answering initialize with a stateless version
			// speaks that era: ask it there.
			return h.discover(messages.LatestModernVersion, false)
		}
		return handshakeStep{err: err}
	}
	h.legacy = true
	h.Cache.put(h.Key, neg.ProtocolVersion)
	return handshakeStep{done: &neg}
}

// moveTo follows a -32022: the newest listed version the engine speaks,
// modern first, unless it is the one just refused or a version is pinned.
func (h *eraRun) moveTo(requested string, uv *messages.UnsupportedVersionError) handshakeStep {
	fail := handshakeStep{err: &mcperr.NoCommonVersionError{Requested: requested, Supported: uv.Supported, Cause: uv}}
	if st, ok := h.resendRefused(requested, uv); ok {
		return st
	}
	if h.Pin != "" {
		return fail
	}
	if v := messages.NewestCommonVersion(uv.Supported, true); v != "" && v != requested {
		return h.discover(v, false)
	}
	if v := messages.NewestCommonVersion(uv.Supported, false); v != "" && v != requested {
		return h.initialize(v)
	}
	return fail
}

func (h *eraRun) discover(version string, probing bool) handshakeStep {
	meta, err := h.meta(version)
	if err != nil {
		return handshakeStep{err: err}
	}
	h.steps++
	h.sent, h.version, h.probing = messages.MethodServerDiscover, version, probing
	st := handshakeStep{method: messages.MethodServerDiscover, meta: meta}
	if probing {
		st.timeout, st.probe = h.ProbeTimeout, true
	}
	return st
}

func (h *eraRun) initialize(version string) handshakeStep {
	h.steps++
	h.sent, h.version, h.probing = messages.MethodInitialize, version, false
	lh := legacyHandshake{clientInfo: h.ClientInfo, version: version}
	method, params := lh.request(h.caps)
	return handshakeStep{method: method, params: params}
}

// meta builds the per-request fields of a modern session. The client
// capabilities are those of the handlers installed, as initialize declares
// them in the legacy era: sampling, elicitation and roots reach a
// 2026-07-28 client as the input requests of an input_required answer,
// which the engine answers with the same handlers (input_rounds.go).
func (h *eraRun) meta(version string) (*messages.RequestMeta, error) {
	return messages.NewRequestMeta(version, clientInfo(h.ClientInfo), modernCapabilities(h.caps))
}

// modernCapabilities are the client capabilities of the stateless era:
// roots without listChanged (the era has no client notifications), no
// tasks (a 2025-11-25 left-over).
func modernCapabilities(caps messages.ClientCapabilities) messages.ClientCapabilities {
	out := messages.ClientCapabilities{Sampling: caps.Sampling, Elicitation: caps.Elicitation, Experimental: caps.Experimental}
	if caps.Roots != nil {
		out.Roots = &messages.RootsCapability{}
	}
	return out
}

func clientInfo(info messages.Implementation) messages.Implementation {
	if info.Name == "" {
		return messages.Implementation{Name: "mcpengine", Version: "0.1.0"}
	}
	return info
}

// isModernRefusal reports the errors by which a modern server refuses a
// request for what it carried (its headers, missing client capabilities):
// proof of the modern era, so no reason to fall back.
func isModernRefusal(err error) bool {
	return errors.Is(err, messages.ErrHeaderMismatch) || errors.Is(err, messages.ErrMissingClientCapability)
}

func containsVersion(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// request implements handshaker for callers that run one step: the first
// request of begin.
func (h *eraRun) request(caps messages.ClientCapabilities) (string, any) {
	st := h.begin(caps)
	return st.method, st.params
}

// accept implements handshaker: the answer to the last request, accepted
// only when it ends the handshake.
func (h *eraRun) accept(result messages.RawMessage) (Negotiated, error) {
	st := h.step(result, nil)
	switch {
	case st.err != nil:
		return Negotiated{}, st.err
	case st.done == nil:
		return Negotiated{}, fmt.Errorf("mcpengine: the handshake needs another request (%s)", st.method)
	}
	return *st.done, nil
}

// completed implements handshaker: notifications/initialized ends a legacy
// handshake; the modern era has no such notification.
func (h *eraRun) completed() (string, bool) {
	if h.legacy {
		return messages.NotificationInitialized, true
	}
	return "", false
}
