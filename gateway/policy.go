package gateway

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gobwas/glob"
)

// Policy says what may be done with a server. A server's policy applies to
// every client; a client's policy to everything that client does; a
// client's per-server policy to that pair. A request must pass every
// policy that applies, and the first one that refuses it is named in the
// error.
//
// Patterns are globs (github.com/gobwas/glob): * any run of characters,
// ? one character, [abc] and [!abc] classes, {a,b} alternatives, \
// escapes. In resource URIs * stops at '/' and ** does not, so
// "file:///tmp/*" is the files directly in /tmp and "file:///tmp/**"
// everything below it. Names and URIs are the server's own, without the
// gateway's prefix.
type Policy struct {
	// Servers picks the servers a client may use at all, by name (in a
	// server's own policy it has no effect).
	Servers Rules
	// Tools, Resources and Prompts filter tool names, resource URIs (and
	// resource templates' URI templates) and prompt names: what is not
	// allowed is neither listed nor callable.
	Tools     Rules
	Resources Rules
	Prompts   Rules
	// MaxResourceBytes refuses a resources/read whose contents (text bytes
	// plus decoded blob bytes) exceed it; 0 is no limit.
	MaxResourceBytes int64
	// MaxToolTime cancels a tools/call still running after this long (the
	// server gets notifications/cancelled); 0 is no limit.
	MaxToolTime time.Duration
	// RateLimit bounds the requests forwarded under this policy.
	RateLimit *RateLimit
}

// Rules are allow and deny patterns. Deny wins; with allow patterns, a
// name must match one of them; with none, everything not denied is
// allowed.
type Rules struct {
	Allow []string `json:"allow"`
	Deny  []string `json:"deny"`
}

// RateLimit is a token bucket: PerSecond requests per second on average,
// bursts of up to Burst (default: PerSecond rounded up, at least 1).
type RateLimit struct {
	PerSecond float64 `json:"perSecond"`
	Burst     int     `json:"burst"`
}

// ruleKind names what a set of rules filters, as written in the
// configuration (and in denial messages).
type ruleKind string

const (
	kindServers   ruleKind = "servers"
	kindTools     ruleKind = "tools"
	kindResources ruleKind = "resources"
	kindPrompts   ruleKind = "prompts"
)

// noun is how denial messages call one item of the kind.
func (k ruleKind) noun() string {
	switch k {
	case kindServers:
		return "server"
	case kindTools:
		return "tool"
	case kindResources:
		return "resource"
	}
	return "prompt"
}

type pattern struct {
	text string
	g    glob.Glob
}

type compiledRules struct {
	allow, deny []pattern
}

type compiledPolicy struct {
	rules            map[ruleKind]compiledRules
	maxResourceBytes int64
	maxToolTime      time.Duration
	rateLimit        *RateLimit
}

func compilePolicy(p Policy) (*compiledPolicy, error) {
	cp := &compiledPolicy{
		rules:            map[ruleKind]compiledRules{},
		maxResourceBytes: p.MaxResourceBytes,
		maxToolTime:      p.MaxToolTime,
		rateLimit:        p.RateLimit,
	}
	if p.MaxResourceBytes < 0 || p.MaxToolTime < 0 {
		return nil, fmt.Errorf("maxResourceBytes and maxToolTime cannot be negative")
	}
	if rl := p.RateLimit; rl != nil && (rl.PerSecond <= 0 || rl.Burst < 0) {
		return nil, fmt.Errorf("rateLimit needs perSecond > 0 and burst >= 0")
	}
	for kind, r := range map[ruleKind]Rules{kindServers: p.Servers, kindTools: p.Tools, kindResources: p.Resources, kindPrompts: p.Prompts} {
		var seps []rune
		if kind == kindResources {
			seps = []rune{'/'}
		}
		var cr compiledRules
		for _, list := range []struct {
			in  []string
			out *[]pattern
		}{{r.Allow, &cr.allow}, {r.Deny, &cr.deny}} {
			for _, text := range list.in {
				g, err := glob.Compile(text, seps...)
				if err != nil {
					return nil, fmt.Errorf("%s pattern %q: %v", kind, text, err)
				}
				*list.out = append(*list.out, pattern{text: text, g: g})
			}
		}
		cp.rules[kind] = cr
	}
	return cp, nil
}

// check returns the rule that refuses name, or "" when the rules allow
// it.
func (cp *compiledPolicy) check(kind ruleKind, name string) string {
	r := cp.rules[kind]
	for _, p := range r.deny {
		if p.g.Match(name) {
			return string(kind) + ".deny " + strconv.Quote(p.text)
		}
	}
	if len(r.allow) == 0 {
		return ""
	}
	for _, p := range r.allow {
		if p.g.Match(name) {
			return ""
		}
	}
	return string(kind) + ".allow (no pattern matches)"
}

// Denial is why a policy refused a request: which policy, which rule, and
// what it refused. It becomes a JSON-RPC error with code CodeDenied.
type Denial struct {
	// Policy names the policy: `server "files"`, `client "ci"`, or
	// `client "ci" for server "files"`.
	Policy string `json:"policy"`
	// Rule is the rule that refused: `tools.deny "write_*"`,
	// `tools.allow (no pattern matches)`, `maxResourceBytes 1024`.
	Rule string `json:"rule"`
	// What was refused: `tool "write_file"`.
	What string `json:"what"`
}

func (d *Denial) Error() string {
	return fmt.Sprintf("denied by %s policy: %s (rule %s)", d.Policy, d.What, d.Rule)
}
