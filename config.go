package mcpengine

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/stdio"
)

// ServerConfig says how to reach one MCP server, in the "mcpServers" JSON
// convention of Claude Desktop, Cursor and VS Code:
//
//	{"mcpServers": {"files": {"command": "npx", "args": ["-y", "server-filesystem", "/tmp"], "env": {"K": "v"}}}}
type ServerConfig struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	// URL is a remote server's endpoint (http, https, ws or wss); Headers
	// are sent with every request to it.
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Type picks the transport when given (VS Code writes it): "stdio";
	// "http" (Streamable HTTP, falling back to HTTP+SSE when the server
	// refuses it, as the spec's backward-compatibility section says; the
	// default for http(s) URLs); "streamable-http" (no fallback); "sse"
	// (the 2024-11-05 HTTP+SSE transport only); "ws" (WebSocket; the
	// default for ws(s) URLs).
	Type string `json:"type,omitempty"`
	// Auth adds credentials to a URL server's requests.
	Auth *AuthConfig `json:"auth,omitempty"`
	// TLS configures https and wss connections to the server.
	TLS *TLSConfig `json:"tls,omitempty"`
	// InheritEnv passes the engine's whole environment to the server
	// instead of the safe subset (PATH, HOME, …).
	InheritEnv bool `json:"inheritEnv,omitempty"`
	// HTTP2PriorKnowledge speaks HTTP/2 without TLS (h2c) to an http://
	// server known to accept it, so that every session's requests and
	// streams share one connection. An https server gets HTTP/2 whenever
	// it offers it (ALPN) without this. Ignored when Config.HTTPClient is
	// set.
	HTTP2PriorKnowledge bool `json:"http2PriorKnowledge,omitempty"`
	// MaxConnections caps the connections to the server that carry calls
	// over HTTP/1.1 (an http:// URL without HTTP2PriorKnowledge, or an
	// https server that does not offer HTTP/2): calls beyond it wait,
	// each within its deadline, for one to come free instead of dialing
	// (Engine.HTTPStats counts them). Zero means
	// httpx.DefaultMaxConnsPerHost (512), negative no cap. Standing
	// streams (GET streams, WebSockets) hold a connection each outside
	// the cap. Ignored when Config.HTTPClient is set.
	MaxConnections int `json:"maxConnections,omitempty"`
}

// ConfigFile is the parsed mcpServers document.
type ConfigFile struct {
	Servers map[string]ServerConfig `json:"mcpServers"`
}

// LoadConfigFile reads an mcpServers JSON file.
func LoadConfigFile(path string) (*ConfigFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := ParseConfig(data)
	return f, withFile(err, path)
}

// ParseConfig parses an mcpServers JSON document. ${VAR} in env values,
// args and headers is expanded from the engine's environment so secrets
// stay out of the file.
//
// A mistake is a *ConfigError saying where it is (line and column) and
// what is wrong: a syntax error, a value of the wrong kind, a misspelt
// field ("comand": did you mean "command"?), an unknown key inside auth,
// tls or oauth, a server with neither a command nor a url. Unknown keys
// of a server that resemble none of its fields are other MCP clients'
// and are ignored.
func ParseConfig(data []byte) (*ConfigFile, error) {
	if err := syntaxError(data); err != nil {
		return nil, err
	}
	var f ConfigFile
	if err := messages.Unmarshal(data, &f); err != nil {
		if located := typeError(data); located != nil {
			return nil, located
		}
		return nil, fmt.Errorf("mcpengine: parsing mcpServers config: %w", err)
	}
	if f.Servers == nil {
		return nil, noServersError(data)
	}
	unknown, fieldErr := unknownFieldError(data)
	if fieldErr != nil {
		return nil, fieldErr
	}
	names := make([]string, 0, len(f.Servers))
	for name := range f.Servers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if s := f.Servers[name]; s.Command == "" && s.URL == "" {
			msg := fmt.Sprintf(`server %q has neither a "command" nor a "url"`, name)
			if u := unknown[name]; len(u) > 0 {
				msg += fmt.Sprintf(" (unknown fields: %q)", u)
			}
			return nil, &ConfigError{Msg: msg}
		}
	}
	for name, s := range f.Servers {
		for k, v := range s.Env {
			s.Env[k] = os.ExpandEnv(v)
		}
		for i, a := range s.Args {
			s.Args[i] = os.ExpandEnv(a)
		}
		for k, v := range s.Headers {
			s.Headers[k] = os.ExpandEnv(v)
		}
		s.URL = os.ExpandEnv(s.URL)
		s.Auth.expandEnv()
		f.Servers[name] = s
	}
	return &f, nil
}

// Server returns the named server's configuration.
func (f *ConfigFile) Server(name string) (ServerConfig, error) {
	s, ok := f.Servers[name]
	if !ok {
		names := make([]string, 0, len(f.Servers))
		for n := range f.Servers {
			names = append(names, n)
		}
		sort.Strings(names)
		return ServerConfig{}, fmt.Errorf("mcpengine: no server %q in config (have: %s)", name, strings.Join(names, ", "))
	}
	return s, nil
}

// dialer builds the transport for this server, authorized for subject
// where it uses OAuth.
func (s ServerConfig) dialer(maxFrame int, e *Engine, hook func(*http.Request), subject string) (transport.Dialer, error) {
	cfg := &e.cfg
	switch {
	case s.Command != "":
		return stdio.NewDialer(stdio.Config{
			Command:       s.Command,
			Args:          s.Args,
			Env:           s.Env,
			Dir:           s.Cwd,
			InheritEnv:    s.InheritEnv,
			MaxFrameBytes: maxFrame,
			Logger:        cfg.Logger,
		}), nil
	case s.URL != "":
		return s.urlDialer(maxFrame, e, hook, subject)
	}
	return nil, errors.New("mcpengine: server config needs a command")
}
