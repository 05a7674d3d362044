package actors

import "sync"

// EraCache remembers, per server, the protocol version a handshake settled
// on, so that later sessions and reconnects to the same server skip the
// era probe (a legacy server goes straight to initialize; a server that
// refused the newest version is asked in the version it named). One cache
// serves every session of an engine; keys name a server (its URL, or its
// command line). The spec asks clients to cache the era per server and to
// re-probe when the cached assumption fails: a handshake whose cached
// version is refused forgets the entry.
type EraCache struct {
	mu sync.Mutex
	m  map[string]string // server key -> protocol version
}

// NewEraCache returns an empty cache.
func NewEraCache() *EraCache { return &EraCache{m: map[string]string{}} }

// Get returns the version cached for key, or "".
func (c *EraCache) Get(key string) string {
	if c == nil || key == "" {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

// Put records version for key.
func (c *EraCache) Put(key, version string) {
	if c == nil || key == "" || version == "" {
		return
	}
	c.mu.Lock()
	c.m[key] = version
	c.mu.Unlock()
}

// Forget drops key's entry if it still holds version (a concurrent session
// may have learned a newer answer meanwhile).
func (c *EraCache) Forget(key, version string) {
	if c == nil || key == "" {
		return
	}
	c.mu.Lock()
	if c.m[key] == version {
		delete(c.m, key)
	}
	c.mu.Unlock()
}
