package main

import (
	"net"
	"net/url"
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
	u, err := withScheme(f.url)
	if err != nil {
		return mcpengine.ServerConfig{}, "", err
	}
	f.url = u
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

// withScheme completes a --url given without a scheme: a loopback host
// (127.0.0.1:3101/mcp, localhost:8080/mcp) is http://, as the servers one
// starts to try are; any other host is refused with the fix, rather than
// guessing between http and https for a remote one.
func withScheme(raw string) (string, error) {
	if strings.Contains(raw, "://") {
		return raw, nil
	}
	u, err := url.Parse("http://" + raw)
	if err != nil || u.Host == "" {
		return "", usagef("--url %q: want an absolute URL such as http://127.0.0.1:3000/mcp", httpx.RedactURL(raw))
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return u.String(), nil
	}
	shown := httpx.RedactURL(raw)
	return "", usagef("--url %q has no scheme: write https://%s (or http://%s for a server without TLS)", shown, shown, shown)
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
