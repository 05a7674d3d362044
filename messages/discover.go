package messages

// MethodServerDiscover (2026-07-28) asks a server for the versions it
// speaks, its capabilities and who it is. Servers of the stateless era must
// implement it; the engine sends it first to learn a server's era.
const MethodServerDiscover = "server/discover" // client → server, 2026-07-28+

// DiscoverParams are the params of server/discover: nothing but the
// per-request _meta, which the session adds (RequestMeta).
type DiscoverParams struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

func (*DiscoverParams) fromClient() {}

// DiscoverResult is the answer to server/discover.
type DiscoverResult struct {
	ResultType        string             `json:"resultType,omitempty"`
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
	// TTLMs and CacheScope are the CacheableResult hints (a public answer
	// with a positive TTL answers later handshakes to the same server).
	// TTLMs is required by the schema, so always sent.
	TTLMs      int64       `json:"ttlMs"`
	CacheScope string      `json:"cacheScope,omitempty"`
	Meta       *ResultMeta `json:"_meta,omitempty"`
}

func (*DiscoverResult) fromServer() {}

// ServerInfo is the server's self-description from _meta (zero when the
// server sent none).
func (r *DiscoverResult) ServerInfo() Implementation {
	if r.Meta == nil || r.Meta.ServerInfo == nil {
		return Implementation{}
	}
	return *r.Meta.ServerInfo
}

// Cache scopes of a CacheableResult (2026-07-28).
const (
	CacheScopePrivate = "private"
	CacheScopePublic  = "public"
)

// ResultMeta is the part of a 2026-07-28 result's _meta the engine reads:
// the server's identity, which a stateless server may repeat on every
// result.
type ResultMeta struct {
	ServerInfo *Implementation `json:"io.modelcontextprotocol/serverInfo,omitempty"`
}

// CacheHints are the members of a 2026-07-28 CacheableResult that say how
// long and by whom it may be cached. A result without ttlMs (the
// handshake era's) is stale at once.
type CacheHints struct {
	ResultType string `json:"resultType,omitempty"`
	TTLMs      *int64 `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
}
