package messages

// Protocol versions of the legacy (initialize handshake) era, oldest first.
const (
	Version20241105 = "2024-11-05"
	Version20250326 = "2025-03-26"
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"

	// LatestVersion is what the engine offers in initialize.
	LatestVersion = Version20251125
)

// SupportedVersions lists every version the engine speaks, newest first.
var SupportedVersions = []string{Version20251125, Version20250618, Version20250326, Version20241105}

// IsSupportedVersion reports whether the engine can speak v.
func IsSupportedVersion(v string) bool {
	for _, s := range SupportedVersions {
		if s == v {
			return true
		}
	}
	return false
}

// VersionAtLeast reports whether v is the same as or newer than min. Dates
// in ISO form compare correctly as strings.
func VersionAtLeast(v, min string) bool { return v >= min }
