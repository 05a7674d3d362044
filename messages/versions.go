package messages

// Protocol versions, oldest first. Two eras: the legacy (handshake) era,
// 2024-11-05 through 2025-11-25, opens a session with initialize; the
// modern (stateless) era, 2026-07-28 on, has no handshake and carries the
// protocol version, client capabilities and client info in every request's
// _meta (see RequestMeta).
const (
	Version20241105 = "2024-11-05"
	Version20250326 = "2025-03-26"
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"
	Version20260728 = "2026-07-28"

	// LatestVersion is the newest legacy-era version: what the engine
	// offers in initialize. (initialize does not exist in the modern era,
	// so the newest version overall is LatestModernVersion.)
	LatestVersion = Version20251125
	// LatestModernVersion is the newest stateless-era version: what the
	// engine probes with server/discover.
	LatestModernVersion = Version20260728
)

// SupportedVersions lists the legacy-era versions the engine negotiates
// in initialize, newest first. LegacyVersions is the same list under the
// name that says which era it is.
var SupportedVersions = []string{Version20251125, Version20250618, Version20250326, Version20241105}

// LegacyVersions lists the handshake-era versions, newest first.
var LegacyVersions = SupportedVersions

// ModernVersions lists the stateless-era versions the engine speaks,
// newest first.
var ModernVersions = []string{Version20260728}

// KnownVersions lists every version the engine speaks, both eras, newest
// first.
var KnownVersions = append(append([]string{}, ModernVersions...), LegacyVersions...)

// IsSupportedVersion reports whether v is a legacy-era version the engine
// can negotiate in initialize.
func IsSupportedVersion(v string) bool { return contains(SupportedVersions, v) }

// IsModernVersionKnown reports whether v is a stateless-era version the
// engine speaks.
func IsModernVersionKnown(v string) bool { return contains(ModernVersions, v) }

// IsKnownVersion reports whether the engine speaks v, in either era.
func IsKnownVersion(v string) bool { return contains(KnownVersions, v) }

// IsModernVersion reports whether v belongs to the stateless era (any
// version from 2026-07-28 on, known to the engine or not): such a version
// is never offered in initialize.
func IsModernVersion(v string) bool { return v != "" && VersionAtLeast(v, Version20260728) }

// VersionAtLeast reports whether v is the same as or newer than min. Dates
// in ISO form compare correctly as strings.
func VersionAtLeast(v, min string) bool { return v >= min }

// NewestCommonVersion returns the newest version of offered (a peer's list,
// any order) that the engine speaks, in the era asked for: modern or
// legacy. It returns "" when there is none.
func NewestCommonVersion(offered []string, modern bool) string {
	ours := LegacyVersions
	if modern {
		ours = ModernVersions
	}
	for _, v := range ours {
		if contains(offered, v) {
			return v
		}
	}
	return ""
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}
