package telemetry

import (
	"slices"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
)

// Peer describes the server side of a session, constant for its life.
type Peer struct {
	// SessionName is the engine's name for the session (not a convention
	// attribute: mcp.session.id is the server-assigned id of HTTP sessions).
	SessionName string
	// Transport is network.transport: "pipe" for stdio and in-process
	// pipes, "tcp" for HTTP and WebSocket.
	Transport mcpconv.NetworkTransportAttr
	// ServerAddress and ServerPort are set for network transports.
	ServerAddress string
	ServerPort    int

	kv []attribute.KeyValue // see Prepare
}

// AttrSessionName carries the engine's session name on every span.
const AttrSessionName = attribute.Key("mcpengine.session.name")

// Prepare computes the peer's span attributes once, so that calls do not
// rebuild them; the engine prepares each session's peer.
func (p Peer) Prepare() Peer {
	p.kv = p.build()
	return p
}

func (p Peer) attrs() []attribute.KeyValue {
	if p.kv != nil {
		return p.kv
	}
	return p.build()
}

func (p Peer) build() []attribute.KeyValue {
	out := []attribute.KeyValue{AttrSessionName.String(p.SessionName)}
	if p.Transport != "" {
		out = append(out, semconv.NetworkTransportKey.String(string(p.Transport)))
	}
	if p.ServerAddress != "" {
		out = append(out, semconv.ServerAddress(p.ServerAddress))
		if p.ServerPort != 0 {
			out = append(out, semconv.ServerPort(p.ServerPort))
		}
	}
	// Clipped: callers append their own attributes to this shared slice
	// (StartPhase, StartInbound, on different goroutines), which must then
	// copy it rather than write into spare capacity they all share.
	return slices.Clip(out)
}
