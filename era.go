package mcpengine

import (
	"fmt"
	"strings"
	"time"
	"unique"

	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/messages"
)

// Protocol eras (Session.Era).
const (
	// EraLegacy: the initialize handshake, 2024-11-05 … 2025-11-25.
	EraLegacy = "legacy"
	// EraModern: the stateless protocol, 2026-07-28 on.
	EraModern = "modern"
)

// MaxInputRounds bounds the rounds of one 2026-07-28 multi round-trip
// request: a server answers input_required, the engine answers its input
// requests with the Sampling, Elicitation and Roots/RootsHandler handlers
// (the same as for the legacy era's server requests) and sends the request
// again with inputResponses and requestState, within the call's one
// deadline, future and span.
const MaxInputRounds = 8

type (
	// UnsupportedVersionError is a -32022 answer, its supported list
	// decoded. Permanent.
	UnsupportedVersionError = messages.UnsupportedVersionError
	// MissingCapabilityError is a -32021 answer, the capabilities the
	// server requires decoded. Permanent.
	MissingCapabilityError = messages.MissingCapabilityError
	// HeaderMismatchError is a -32020 answer: the server found the HTTP
	// headers at odds with the body.
	HeaderMismatchError = messages.HeaderMismatchError
)

// VersionConfigError: Config.ProtocolVersion names a version the engine
// does not speak. Open and Connect return it before any traffic.
type VersionConfigError struct {
	Version string
}

func (e *VersionConfigError) Error() string {
	return fmt.Sprintf("mcpengine: protocol version %q is not one the engine speaks (%s)",
		e.Version, strings.Join(messages.KnownVersions, ", "))
}

func checkVersionConfig(v string) error {
	if v == "" || messages.IsKnownVersion(v) {
		return nil
	}
	return &VersionConfigError{Version: v}
}

// serverKey names the server for the per-engine era cache: its URL, or its
// command line and directory. A bare Dialer (memory pipes, custom
// transports) has no identity the engine can trust, so nothing is cached.
// The key is interned: every session of a server keeps it (era cache,
// result cache), and a command line can be long.
func (sc SessionConfig) serverKey() string {
	switch {
	case sc.Server.URL != "":
		return unique.Make("url:" + sc.Server.Type + ":" + sc.Server.URL).Value()
	case sc.Server.Command != "":
		var b strings.Builder
		b.WriteString("cmd:")
		b.WriteString(sc.Server.Cwd)
		b.WriteString("\x00")
		b.WriteString(sc.Server.Command)
		for _, a := range sc.Server.Args {
			b.WriteString("\x00")
			b.WriteString(a)
		}
		return unique.Make(b.String()).Value()
	}
	return ""
}

// Era is the protocol era the session negotiated: EraModern, EraLegacy,
// or "" before its first handshake.
func (s *Session) Era() string {
	n := s.sh.Negotiated()
	switch {
	case n == nil:
		return ""
	case n.Modern():
		return EraModern
	}
	return EraLegacy
}

// maxProbeTimeout caps the wait for an answer to the era probe. Some
// servers of the handshake era never answer a request that comes before
// initialize; the spec counts that silence as their era, and every second
// of it is a second of Connect (once per server: the era is cached). A
// second is long for a started server to answer a request it understands,
// and a slow starter of the stateless era costs only a detour: it refuses
// the initialize sent meanwhile with -32022, and the engine discovers
// again. The probe's timeout and its late answer are not counted in Stats
// as a timeout or a late response: the silence is the answer.
const maxProbeTimeout = time.Second

// probeTimeout is min(half the init timeout, maxProbeTimeout), leaving
// initialize at least half of it.
func probeTimeout(initTimeout time.Duration) time.Duration {
	return min(firstDuration(initTimeout, actors.DefaultInitTimeout)/2, maxProbeTimeout)
}
