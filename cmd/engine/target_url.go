package main

import (
	"os"
	"strings"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/oauth"
	"github.com/mcpengine/mcpengine/transport/httpx"
)

// urlTarget is the --url target with its headers and credentials. Values
// may name environment variables ($TOKEN), which keeps secrets out of
// shell history and process listings.
func (f *targetFlags) urlTarget() (mcpengine.ServerConfig, string, error) {
	sc := mcpengine.ServerConfig{URL: f.url, Type: f.transport}
	for _, h := range f.headers {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			// The value is not echoed: it may be a credential.
			return mcpengine.ServerConfig{}, "", usagef(`--header: want "Name: value"`)
		}
		if sc.Headers == nil {
			sc.Headers = map[string]string{}
		}
		sc.Headers[name] = os.ExpandEnv(strings.TrimSpace(value))
	}
	switch {
	case f.bearer != "":
		sc.Auth = &mcpengine.AuthConfig{Bearer: os.ExpandEnv(f.bearer)}
	case isHTTPURL(f.url) && !hasHeader(sc.Headers, "Authorization"):
		// No credentials given: answer the server's 401 the OAuth way,
		// with the token `engine login` kept (dynamic registration).
		sc.Auth = &mcpengine.AuthConfig{OAuth: &oauth.Config{}}
	}
	switch strings.ToLower(f.transport) {
	case "", "http", "streamable-http", "sse", "ws", "websocket":
	default:
		return mcpengine.ServerConfig{}, "", usagef("--transport %q: want http, streamable-http, sse or ws", f.transport)
	}
	return sc, httpx.RedactURL(f.url), nil
}

// hasHeader reports whether headers name the header, in any case.
func hasHeader(headers map[string]string, name string) bool {
	for k := range headers {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// isHTTPURL reports an http or https URL: OAuth answers those servers'
// 401s (a WebSocket upgrade carries no MCP authorization flow).
func isHTTPURL(raw string) bool {
	scheme, _, _ := strings.Cut(raw, "://")
	scheme = strings.ToLower(scheme)
	return scheme == "http" || scheme == "https"
}
