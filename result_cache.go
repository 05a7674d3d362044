package mcpengine

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/messages"
)

// In 2026-07-28 the lists and resources/read are CacheableResults: ttlMs
// says how long the client may take the result as fresh, cacheScope who
// may share it. The engine keeps fresh results and answers the same
// request from them: "private" ones for the session that fetched them,
// "public" ones for every session of the same server in the engine, so
// that hundreds of sessions to one server list its tools once per ttl. A
// list_changed (or resources/updated) the session hears drops the
// matching results at once.

// maxCachedResults bounds one cache; when it is full of fresh results a new
// one is not kept (the next request goes to the server).
const maxCachedResults = 4096

// resultKey names one cached answer: the server (empty for a session's
// own cache), the method and the one parameter that changes the result
// (the cursor of a list page, the URI of resources/read).
type resultKey struct {
	server, method, param string
}

type cachedResult struct {
	raw     messages.RawMessage
	expires time.Time
}

// resultCache is safe for concurrent use: callers of every session read
// and fill it, and the sessions' notification taps drop from it.
type resultCache struct {
	mu      sync.Mutex
	entries map[resultKey]cachedResult
}

func (c *resultCache) get(k resultKey, now time.Time) (messages.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok {
		return nil, false
	}
	if !now.Before(e.expires) {
		delete(c.entries, k)
		return nil, false
	}
	return e.raw, true
}

func (c *resultCache) put(k resultKey, raw messages.RawMessage, expires time.Time, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[resultKey]cachedResult{}
	}
	if len(c.entries) >= maxCachedResults {
		for ek, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, ek)
			}
		}
		if len(c.entries) >= maxCachedResults {
			return
		}
	}
	// The result aliases its frame: keep only its own bytes.
	c.entries[k] = cachedResult{raw: bytes.Clone(raw), expires: expires}
}

// drop removes the server's results of the methods; with uri set, only
// that resource's resources/read.
func (c *resultCache) drop(server string, methods []string, uri string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.entries {
		if k.server != server {
			continue
		}
		for _, m := range methods {
			if k.method == m && (uri == "" || k.param == uri) {
				delete(c.entries, k)
			}
		}
	}
}

// invalidatedBy says which cached methods a notification makes stale.
func invalidatedBy(method string) []string {
	switch method {
	case messages.NotificationToolsListChanged:
		return []string{messages.MethodToolsList}
	case messages.NotificationPromptsListChanged:
		return []string{messages.MethodPromptsList}
	case messages.NotificationResourcesListChanged:
		return []string{messages.MethodResourcesList, messages.MethodResourcesTemplatesList}
	case messages.NotificationResourcesUpdated:
		return []string{messages.MethodResourcesRead}
	}
	return nil
}

// sessionResults is a session's side of caching: its private cache, and
// the engine's public one under its server's key.
type sessionResults struct {
	private   resultCache
	public    *resultCache // nil: nothing shared (caching off, or no server key)
	serverKey string
	off       bool
}

// tap is the session's notification tap: it runs on the session for every
// notification, whether or not anyone watches them, and never blocks.
func (r *sessionResults) tap(n actors.Notification) {
	methods := invalidatedBy(n.Method)
	if methods == nil {
		return
	}
	uri := ""
	if n.Method == messages.NotificationResourcesUpdated {
		var p messages.ResourceUpdatedParams
		if messages.Unmarshal(n.Params, &p) != nil || p.URI == "" {
			return
		}
		uri = p.URI
	}
	r.private.drop("", methods, uri)
	if r.public != nil {
		r.public.drop(r.serverKey, methods, uri)
	}
}

// DropCachedResults forgets the results this session may answer from its
// caches (its own, and those its server's sessions share), so that the
// next list or read goes to the server.
func (s *Session) DropCachedResults() {
	r := &s.results
	all := []string{messages.MethodToolsList, messages.MethodPromptsList, messages.MethodResourcesList,
		messages.MethodResourcesTemplatesList, messages.MethodResourcesRead}
	r.private.drop("", all, "")
	if r.public != nil {
		r.public.drop(r.serverKey, all, "")
	}
}

// cachedCall answers a cacheable request from a fresh cached result, or
// sends it and keeps the result as long as its hints allow. Only results
// of the 2026-07-28 era carry hints; the handshake era is always sent.
func (s *Session) cachedCall(ctx context.Context, method, param string, params any, opts []CallOption) (messages.RawMessage, error) {
	r := &s.results
	if r.off || s.Era() != EraModern {
		return s.Call(ctx, method, params, opts...)
	}
	own := resultKey{method: method, param: param}
	shared := resultKey{server: r.serverKey, method: method, param: param}
	now := time.Now()
	if raw, ok := r.private.get(own, now); ok {
		return raw, nil
	}
	if r.public != nil {
		if raw, ok := r.public.get(shared, now); ok {
			return raw, nil
		}
	}
	raw, err := s.Call(ctx, method, params, opts...)
	if err != nil {
		return raw, err
	}
	var hints messages.CacheHints
	if messages.UnmarshalOwned(raw, &hints) != nil || hints.TTLMs == nil || *hints.TTLMs <= 0 ||
		hints.ResultType != "" && hints.ResultType != messages.ResultTypeComplete {
		return raw, nil
	}
	received := time.Now()
	expires := received.Add(time.Duration(*hints.TTLMs) * time.Millisecond)
	if hints.CacheScope == messages.CacheScopePublic && r.public != nil {
		r.public.put(shared, raw, expires, received)
	} else {
		r.private.put(own, raw, expires, received)
	}
	return raw, nil
}
