// Package peers runs one workload, tools/call echo {"text":"hello"} against
// the official Go SDK (v1.8.0) server, through several MCP clients: a
// hand-written raw JSON-RPC loop, mcpengine, the official go-sdk and
// mcp-go, over stdio (the server a child process) and Streamable HTTP (the
// server a separate child process), in either protocol era. Every client
// uses only its library's public client API.
package peers

import (
	"context"
	"errors"
	"fmt"
)

// The protocol versions the rows of the comparison pin: every client offers
// exactly one, so none spends a round trip probing for another.
const (
	Legacy = "2025-11-25"
	Modern = "2026-07-28"
)

// EchoText is the text argument of every call; each client checks that the
// result's first text content equals it.
const EchoText = "hello"

// Target says where a client connects and which version it offers.
type Target struct {
	Version string
	// Command and Args start a stdio server (one child per session); both
	// are empty for an HTTP target.
	Command string
	Args    []string
	// URL is a Streamable HTTP endpoint, shared by every session.
	URL string
}

// Client is one connected MCP client session.
type Client interface {
	// Echo makes one tools/call echo {"text": EchoText} and checks the result.
	Echo(ctx context.Context) error
	// Close ends the session (and its stdio server child).
	Close() error
}

// Library is what a program keeps once per server and opens sessions
// from: mcpengine's Engine, go-sdk's Client, a shared http.Client. Opening
// many sessions from one Library is how each library is meant to be used
// for many sessions, so the idle rows measure that.
type Library interface {
	Open(ctx context.Context) (Client, error)
	// Close releases what the sessions shared; every session is closed first.
	Close() error
}

// Kind names a client implementation.
type Kind struct {
	Name string
	// Speaks lists the versions its public API can pin.
	Speaks []string
	New    func(Target) Library
}

// SpeaksVersion reports whether k can pin version v.
func (k Kind) SpeaksVersion(v string) bool {
	for _, s := range k.Speaks {
		if s == v {
			return true
		}
	}
	return false
}

// Kinds are the clients compared, in table order. The raw loops speak only
// the handshake era: they are the floor of the legacy rows.
var Kinds = []Kind{
	{"go-sdk", []string{Legacy, Modern}, newGoSDK},
	{"mcp-go", []string{Legacy, Modern}, newMCPGo},
	{"raw", []string{Legacy}, newRawStd},
	{"raw-sonic", []string{Legacy}, newRawSonic},
	{"mcpengine", []string{Legacy, Modern}, newEngine},
}

// KindNamed returns the kind called name.
func KindNamed(name string) (Kind, bool) {
	for _, k := range Kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

var errBadEcho = errors.New("echo: unexpected result")

func checkEcho(text string) error {
	if text != EchoText {
		return fmt.Errorf("%w: %q", errBadEcho, text)
	}
	return nil
}

var errWrongVersion = errors.New("session settled on another protocol version")

// checkVersion fails a session that did not settle on the version its row
// pins: a library that quietly fell back to the other era would otherwise
// be measured in the wrong row.
func checkVersion(t Target, got string) error {
	if got != t.Version {
		return fmt.Errorf("%w: %q, pinned %q", errWrongVersion, got, t.Version)
	}
	return nil
}
