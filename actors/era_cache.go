package actors

import (
	"reflect"
	"sync"
	"time"

	"github.com/mcpengine/mcpengine/messages"
)

// EraCache remembers, per server, the protocol version a handshake settled
// on, so that later sessions and reconnects to the same server skip the
// era probe (a legacy server goes straight to initialize; a server that
// refused the newest version is asked in the version it named). One cache
// serves every session of an engine; keys name a server (its URL, or its
// command line). The spec asks clients to cache the era per server and to
// re-probe when the cached assumption fails: a handshake whose cached
// version is refused forgets the entry.
//
// A server/discover answer that says it may be shared ("public" with a
// positive ttlMs, 2026-07-28) is kept too, and answers later handshakes to
// that server while fresh: a new session then costs no round trip.
type EraCache struct {
	mu       sync.Mutex
	m        map[string]string // server key -> protocol version
	discover map[string]cachedDiscover
	// negotiated is the last handshake outcome per server key, which
	// sessions of that server that learned the same share (share).
	negotiated map[string]*Negotiated
}

type cachedDiscover struct {
	version string
	result  messages.DiscoverResult
	expires time.Time
}

// NewEraCache returns an empty cache.
func NewEraCache() *EraCache {
	return &EraCache{m: map[string]string{}, discover: map[string]cachedDiscover{}, negotiated: map[string]*Negotiated{}}
}

// share returns the Negotiated another session of key's server holds, when
// it equals n, and otherwise keeps n for the next session: the sessions of
// one server learn the same facts (version, info, capabilities,
// instructions), and each would otherwise keep its own copy for as long
// as it is idle (~250 B, and the strings and capabilities decoded into it).
// A Negotiated is never written once published.
func (c *EraCache) share(key string, n *Negotiated) *Negotiated {
	if c == nil || key == "" {
		return n
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.negotiated[key]; old != nil && reflect.DeepEqual(old, n) {
		return old
	}
	c.negotiated[key] = n
	return n
}

// putDiscover keeps a discover answer for key while its hints allow.
func (c *EraCache) putDiscover(key, version string, r *messages.DiscoverResult, received time.Time) {
	if c == nil || key == "" || r.TTLMs <= 0 || r.CacheScope == messages.CacheScopePrivate {
		return
	}
	c.mu.Lock()
	c.discover[key] = cachedDiscover{version: version, result: *r, expires: received.Add(time.Duration(r.TTLMs) * time.Millisecond)}
	c.mu.Unlock()
}

// freshDiscover returns the discover answer kept for key in version, if
// still fresh.
func (c *EraCache) freshDiscover(key, version string, now time.Time) (*messages.DiscoverResult, bool) {
	if c == nil || key == "" {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.discover[key]
	if !ok || d.version != version {
		return nil, false
	}
	if !now.Before(d.expires) {
		delete(c.discover, key)
		return nil, false
	}
	r := d.result
	return &r, true
}

// Get returns the version cached for key, or "".
func (c *EraCache) get(key string) string {
	if c == nil || key == "" {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

// Put records version for key.
func (c *EraCache) put(key, version string) {
	if c == nil || key == "" || version == "" {
		return
	}
	c.mu.Lock()
	c.m[key] = version
	c.mu.Unlock()
}

// Forget drops key's entry if it still holds version (a concurrent session
// may have learned a newer answer meanwhile).
func (c *EraCache) forget(key, version string) {
	if c == nil || key == "" {
		return
	}
	c.mu.Lock()
	if c.m[key] == version {
		delete(c.m, key)
	}
	if c.discover[key].version == version {
		delete(c.discover, key)
	}
	c.mu.Unlock()
}
