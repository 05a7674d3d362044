package mcpengine

import "github.com/mcpengine/mcpengine/transport"

// Dialer returns the transport the engine would build for sc (a stdio
// subprocess, Streamable HTTP, HTTP+SSE or WebSocket, with sc's headers,
// credentials and TLS settings, on the engine's shared HTTP client), for an
// application that wraps its connections, e.g. to handle some server
// requests itself, and passes the wrapper back as SessionConfig.Dialer.
func (e *Engine) Dialer(sc ServerConfig) (transport.Dialer, error) {
	return sc.dialer(e.cfg.MaxFrameBytes, e)
}
