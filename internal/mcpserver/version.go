package mcpserver

import "slices"

// NegotiateVersion is the protocol version a server answers to an
// initialize asking for requested: that one if the server accepts it,
// else the newest it accepts (the client then decides whether it can
// speak it). The dates compare as strings. accepted must not be empty.
func NegotiateVersion(requested string, accepted []string) string {
	if slices.Contains(accepted, requested) {
		return requested
	}
	return slices.Max(accepted)
}
