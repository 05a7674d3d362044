package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/internal/configcheck"
	"github.com/mcpengine/mcpengine/messages"
)

// The file format: the mcpServers document every MCP client reads, plus a
// "gateway" section only the gateway reads. A server without an entry in
// gateway.servers gets the defaults (one session, prefix "name__", no
// policy of its own).
//
//	{
//	  "mcpServers": {"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]}},
//	  "gateway": {
//	    "servers": {"files": {"pool": 2, "prefix": "fs__", "policy": {"tools": {"deny": ["write_*"]}}}},
//	    "clients": [{"name": "agent", "token": "${AGENT_TOKEN}", "policy": {"rateLimit": {"perSecond": 5, "burst": 10}}}],
//	    "audit": {"file": "audit.jsonl"}
//	  }
//	}
//
// ${VAR} is expanded from the environment in tokens, token files and the
// audit path (and, by mcpengine.ParseConfig, in the servers' env, args,
// headers, url and auth), so secrets stay out of the file. Unknown keys in
// the gateway section are errors: a misspelt "deny" must not silently
// allow everything.

type fileDoc struct {
	Gateway json.RawMessage `json:"gateway"`
}

type fileGateway struct {
	Servers              map[string]fileServer `json:"servers"`
	Clients              []fileClient          `json:"clients"`
	Audit                fileAudit             `json:"audit"`
	SessionIdleTimeout   duration              `json:"sessionIdleTimeout"`
	ReadyWait            duration              `json:"readyWait"`
	RequestTimeout       duration              `json:"requestTimeout"`
	ClientRequestTimeout duration              `json:"clientRequestTimeout"`
	MaxBodyBytes         int64                 `json:"maxBodyBytes"`
	AllowedOrigins       []string              `json:"allowedOrigins"`
	AllowedHosts         []string              `json:"allowedHosts"`
	BodyTimeout          duration              `json:"bodyTimeout"`
	HeaderTimeout        duration              `json:"headerTimeout"`
	MaxConnections       int                   `json:"maxConnections"`
}

type fileServer struct {
	Pool   int             `json:"pool"`
	Prefix *string         `json:"prefix"` // "" means no prefix
	Policy filePolicy      `json:"policy"`
	Roots  []messages.Root `json:"roots"`
}

type fileClient struct {
	Name      string                `json:"name"`
	Token     string                `json:"token"`
	TokenFile string                `json:"tokenFile"`
	Policy    filePolicy            `json:"policy"`
	Servers   map[string]filePolicy `json:"servers"`
}

type fileAudit struct {
	File      string `json:"file"`
	Arguments bool   `json:"arguments"`
}

type filePolicy struct {
	Servers          Rules      `json:"servers"`
	Tools            Rules      `json:"tools"`
	Resources        Rules      `json:"resources"`
	Prompts          Rules      `json:"prompts"`
	MaxResourceBytes int64      `json:"maxResourceBytes"`
	MaxToolTime      duration   `json:"maxToolTime"`
	RateLimit        *RateLimit `json:"rateLimit"`
}

func (p filePolicy) policy() Policy {
	return Policy{
		Servers: p.Servers, Tools: p.Tools, Resources: p.Resources, Prompts: p.Prompts,
		MaxResourceBytes: p.MaxResourceBytes, MaxToolTime: time.Duration(p.MaxToolTime), RateLimit: p.RateLimit,
	}
}

// duration is a time.Duration written as a Go duration string ("30s").
type duration time.Duration

func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf(`durations are strings like "30s" or "5m"`)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf("bad duration %q", s)
	}
	*d = duration(v)
	return nil
}

// LoadConfig reads a gateway configuration file (see ParseConfig).
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	cfg, err := ParseConfig(data)
	var ce *mcpengine.ConfigError
	if errors.As(err, &ce) && ce.File == "" {
		ce.File = path
	}
	return cfg, err
}

// unknownGatewayField reports the first unknown key of the gateway
// section, saying where it is and what was probably meant, as a
// *mcpengine.ConfigError (the decoder below would only name the key).
func unknownGatewayField(data []byte) error {
	type withGateway struct {
		Gateway fileGateway `json:"gateway"`
	}
	found, err := configcheck.UnknownFields(data, reflect.TypeFor[withGateway]())
	if err != nil {
		return nil // the decoder says what is wrong
	}
	for _, u := range found {
		if len(u.Path) == 0 {
			continue // beside "gateway": mcpServers' or another client's
		}
		msg := fmt.Sprintf("unknown field %q in %s", u.Name, strings.Join(u.Path, "."))
		if u.Suggestion != "" {
			msg += fmt.Sprintf("; did you mean %q?", u.Suggestion)
		} else {
			msg += fmt.Sprintf(" (known: %s)", strings.Join(configcheck.Known(u.In), ", "))
		}
		return mcpengine.NewConfigError(data, u.Offset, msg)
	}
	return nil
}

// ParseConfig parses an mcpServers document with an optional "gateway"
// section. Every server of mcpServers is fronted. The result is checked
// when New builds the gateway.
func ParseConfig(data []byte) (*Config, error) {
	cf, err := mcpengine.ParseConfig(data)
	if err != nil {
		return nil, err
	}
	var doc fileDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("gateway: parsing config: %w", err)
	}
	if err := unknownGatewayField(data); err != nil {
		return nil, err
	}
	var g fileGateway
	if len(doc.Gateway) > 0 && string(doc.Gateway) != "null" {
		dec := json.NewDecoder(bytes.NewReader(doc.Gateway))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&g); err != nil {
			return nil, fmt.Errorf(`gateway: parsing the "gateway" section: %w`, err)
		}
	}
	cfg := &Config{
		Servers:              make(map[string]Server, len(cf.Servers)),
		SessionIdleTimeout:   time.Duration(g.SessionIdleTimeout),
		ReadyWait:            time.Duration(g.ReadyWait),
		ClientRequestTimeout: time.Duration(g.ClientRequestTimeout),
		MaxBodyBytes:         g.MaxBodyBytes,
		AllowedOrigins:       g.AllowedOrigins,
		AllowedHosts:         g.AllowedHosts,
		BodyTimeout:          time.Duration(g.BodyTimeout),
		ReadHeaderTimeout:    time.Duration(g.HeaderTimeout),
		MaxConnections:       g.MaxConnections,
		Audit:                Audit{File: os.ExpandEnv(g.Audit.File), Arguments: g.Audit.Arguments},
	}
	cfg.Engine.RequestTimeout = time.Duration(g.RequestTimeout)
	for name, target := range cf.Servers {
		cfg.Servers[name] = Server{Target: target}
	}
	for name, fs := range g.Servers {
		s, ok := cfg.Servers[name]
		if !ok {
			return nil, fmt.Errorf("gateway: gateway.servers has %q, which is not in mcpServers", name)
		}
		s.Pool, s.Policy, s.Roots = fs.Pool, fs.Policy.policy(), fs.Roots
		if fs.Prefix != nil {
			s.Prefix, s.NoPrefix = *fs.Prefix, *fs.Prefix == ""
		}
		cfg.Servers[name] = s
	}
	for _, fc := range g.Clients {
		c := Client{Name: fc.Name, Token: os.ExpandEnv(fc.Token), Policy: fc.Policy.policy()}
		if fc.TokenFile != "" {
			if c.Token != "" {
				return nil, fmt.Errorf("gateway: client %q has both token and tokenFile", fc.Name)
			}
			b, err := os.ReadFile(os.ExpandEnv(fc.TokenFile))
			if err != nil {
				return nil, fmt.Errorf("gateway: client %q: reading its token file: %w", fc.Name, err)
			}
			c.Token = strings.TrimSpace(string(b))
		}
		if len(fc.Servers) > 0 {
			c.Servers = make(map[string]Policy, len(fc.Servers))
			for server, p := range fc.Servers {
				c.Servers[server] = p.policy()
			}
		}
		cfg.Clients = append(cfg.Clients, c)
	}
	return cfg, nil
}
