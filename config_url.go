package mcpengine

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/mcpengine/mcpengine/oauth"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/httpx"
	"github.com/mcpengine/mcpengine/transport/legacysse"
	"github.com/mcpengine/mcpengine/transport/streamable"
	"github.com/mcpengine/mcpengine/transport/websocket"
)

// AuthConfig is one way of authenticating to a URL server. Values may be
// ${VAR} references, expanded from the engine's environment so secrets
// stay out of the file; they never appear in logs or errors.
//
//	"auth": {"bearer": "${API_TOKEN}"}
//	"auth": {"basic": {"username": "me", "password": "${PASSWORD}"}}
//	"auth": {"apiKey": {"header": "X-API-Key", "value": "${KEY}"}}
//	"auth": {"oauth": {"clientId": "my-app", "scopes": ["files:read"]}}
//
// OAuth follows the MCP authorization specification: the engine discovers
// the server's authorization server from its first 401 and obtains a
// token, shared by every session of the engine that reaches the same
// server with the same settings (Config.OAuth says where tokens are kept
// and who runs an interactive login).
type AuthConfig struct {
	Bearer string        `json:"bearer,omitempty"`
	Basic  *BasicAuth    `json:"basic,omitempty"`
	APIKey *APIKeyAuth   `json:"apiKey,omitempty"`
	OAuth  *oauth.Config `json:"oauth,omitempty"`
}

// BasicAuth is HTTP basic authentication.
type BasicAuth struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// APIKeyAuth sends a key in a header of its own.
type APIKeyAuth struct {
	Header string `json:"header"`
	Value  string `json:"value"`
}

// TLSConfig configures TLS to one server, in configuration-file terms.
type TLSConfig struct {
	CAFile             string `json:"caFile,omitempty"`
	CertFile           string `json:"certFile,omitempty"`
	KeyFile            string `json:"keyFile,omitempty"`
	ServerName         string `json:"serverName,omitempty"`
	InsecureSkipVerify bool   `json:"insecureSkipVerify,omitempty"`
}

func (a *AuthConfig) expandEnv() {
	if a == nil {
		return
	}
	a.Bearer = os.ExpandEnv(a.Bearer)
	if a.Basic != nil {
		a.Basic.Username = os.ExpandEnv(a.Basic.Username)
		a.Basic.Password = os.ExpandEnv(a.Basic.Password)
	}
	if a.APIKey != nil {
		a.APIKey.Value = os.ExpandEnv(a.APIKey.Value)
	}
	if o := a.OAuth; o != nil {
		o.ClientID = os.ExpandEnv(o.ClientID)
		o.ClientSecret = os.ExpandEnv(o.ClientSecret)
		o.ClientMetadataURL = os.ExpandEnv(o.ClientMetadataURL)
		o.PrivateKeyPEM = os.ExpandEnv(o.PrivateKeyPEM)
		if o.IDP != nil {
			o.IDP.ClientID = os.ExpandEnv(o.IDP.ClientID)
			o.IDP.ClientSecret = os.ExpandEnv(o.IDP.ClientSecret)
			o.IDP.IDToken = os.ExpandEnv(o.IDP.IDToken)
		}
	}
}

// header is every header the server's requests carry: the configured
// ones, then the credentials.
func (s ServerConfig) header() (http.Header, error) {
	var h http.Header // nil without headers: a map per session costs an idle one ~50 B
	for k, v := range s.Headers {
		if h == nil {
			h = http.Header{}
		}
		h.Set(k, v)
	}
	if a := s.Auth; a != nil {
		set := 0
		if a.Bearer != "" {
			h = httpx.Merge(h, httpx.Bearer(a.Bearer))
			set++
		}
		if a.Basic != nil {
			h = httpx.Merge(h, httpx.Basic(a.Basic.Username, a.Basic.Password))
			set++
		}
		if a.APIKey != nil {
			if a.APIKey.Header == "" {
				return nil, fmt.Errorf("mcpengine: auth.apiKey needs a header name")
			}
			h = httpx.Merge(h, httpx.APIKey(a.APIKey.Header, a.APIKey.Value))
			set++
		}
		if a.OAuth != nil {
			set++
		}
		if set > 1 {
			return nil, fmt.Errorf("mcpengine: auth has %d methods; give one of bearer, basic, apiKey, oauth", set)
		}
	}
	return h, nil
}

// urlDialer builds the transport of a URL server: Streamable HTTP (with
// the legacy fallback unless the type forbids it), HTTP+SSE or WebSocket.
// subject picks the OAuth authorization (SessionConfig.Subject).
func (s ServerConfig) urlDialer(maxFrame int, e *Engine, hook func(*http.Request), subject string) (transport.Dialer, error) {
	u, err := url.Parse(s.URL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("mcpengine: server URL %s is not an absolute URL", httpx.RedactURL(s.URL))
	}
	header, err := s.header()
	if err != nil {
		return nil, err
	}
	client, err := e.httpClientFor(u, s)
	if err != nil {
		return nil, err
	}
	if s.Auth != nil && s.Auth.OAuth != nil {
		if client, err = e.oauthClientFor(s.URL, *s.Auth.OAuth, subject, client); err != nil {
			return nil, err
		}
	}
	client = hookedClient(client, hook)
	log := e.cfg.Logger
	scheme := strings.ToLower(u.Scheme)
	kind := strings.ToLower(s.Type)
	if kind == "" {
		kind = "http"
		if scheme == "ws" || scheme == "wss" {
			kind = "ws"
		}
	}
	if err := checkURLScheme(kind, scheme, s.URL); err != nil && kind != "stdio" {
		return nil, err
	}
	switch kind {
	case "http", "streamable-http", "streamablehttp":
		return &streamable.Dialer{URL: s.URL, Client: client, Header: header, MaxFrameBytes: maxFrame, Logger: log, FallbackToSSE: kind == "http"}, nil
	case "sse":
		return &legacysse.Dialer{URL: s.URL, Client: client, Header: header, MaxFrameBytes: maxFrame, Logger: log}, nil
	case "ws", "websocket":
		return websocket.Dialer{URL: s.URL, HTTPClient: client, Header: header, MaxFrameBytes: maxFrame, Logger: log}, nil
	case "stdio":
		return nil, fmt.Errorf("mcpengine: server type stdio needs a command, not a URL")
	}
	return nil, fmt.Errorf("mcpengine: unknown server type %q (want http, streamable-http, sse, ws or stdio)", s.Type)
}

// httpClientKey names one server's connection pool: its origin, TLS
// settings and protocol choice.
type httpClientKey struct {
	origin string // scheme://host:port
	tls    TLSConfig
	h2c    bool
	max    int // ServerConfig.MaxConnections
}

// httpClientFor returns the HTTP client of the server at u, one per
// server (origin, TLS settings, h2c), built on first use and shared by
// all its sessions: each server has a connection pool of its own, sized
// by its own concurrency (httpx.DefaultMaxIdleConnsPerHost) up to its
// cap (ServerConfig.MaxConnections). With
// Config.HTTPClient set, that client serves every server without TLS
// settings of its own.
func (e *Engine) httpClientFor(u *url.URL, s ServerConfig) (*http.Client, error) {
	var t TLSConfig
	if s.TLS != nil {
		t = *s.TLS
	}
	if t == (TLSConfig{}) && e.cfg.HTTPClient != nil {
		return e.cfg.HTTPClient, nil
	}
	key := httpClientKey{origin: strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host), tls: t, h2c: s.HTTP2PriorKnowledge, max: s.MaxConnections}
	e.httpMu.Lock()
	defer e.httpMu.Unlock()
	if c, ok := e.httpClients[key]; ok {
		return c, nil
	}
	opts := httpx.ClientOptions{HTTP2PriorKnowledge: s.HTTP2PriorKnowledge, DialGate: &e.dialGate, MaxConnsPerHost: s.MaxConnections}
	if t != (TLSConfig{}) {
		tc, err := httpx.TLSOptions{
			CAFile: t.CAFile, CertFile: t.CertFile, KeyFile: t.KeyFile,
			ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify,
		}.Config()
		if err != nil {
			return nil, fmt.Errorf("mcpengine: server TLS settings: %w", err)
		}
		opts.TLS = tc
	}
	c := httpx.NewClient(opts)
	if e.httpClients == nil {
		e.httpClients = map[httpClientKey]*http.Client{}
	}
	e.httpClients[key] = c
	return c, nil
}

// closeHTTPClients releases the idle keep-alive connections of the
// clients the engine built (not of one the application passed in).
func (e *Engine) closeHTTPClients() {
	e.httpMu.Lock()
	defer e.httpMu.Unlock()
	for _, c := range e.httpClients {
		c.CloseIdleConnections()
	}
}
