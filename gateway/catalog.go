package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// listKind is one of the four lists a server offers.
type listKind int

const (
	listTools listKind = iota
	listResources
	listTemplates
	listPrompts
	numLists
)

// method is the list's MCP method; key the result member holding it.
func (k listKind) method() string {
	return [...]string{messages.MethodToolsList, messages.MethodResourcesList, messages.MethodResourcesTemplatesList, messages.MethodPromptsList}[k]
}

func (k listKind) key() string {
	return [...]string{"tools", "resources", "resourceTemplates", "prompts"}[k]
}

// ruleKind is the policy rules that filter the list.
func (k listKind) ruleKind() ruleKind {
	return [...]ruleKind{kindTools, kindResources, kindResources, kindPrompts}[k]
}

// changedNotification is the list_changed notification of the list.
func (k listKind) changedNotification() string {
	switch k {
	case listTools:
		return messages.NotificationToolsListChanged
	case listPrompts:
		return messages.NotificationPromptsListChanged
	}
	return messages.NotificationResourcesListChanged
}

// item is one entry of a server's list: its own bytes, the same with the
// gateway's prefix on its name, and what policies and routing match on.
type item struct {
	raw     messages.RawMessage // as the server sent it
	renamed messages.RawMessage // with the prefix on "name" (raw when no prefix)
	name    string              // tools, prompts: the server's name
	uri     string              // resources: uri; templates: uriTemplate
	tmpl    *uriTemplate        // templates
}

// key is what the list's policy rules match.
func (it *item) key(k listKind) string {
	if k == listResources || k == listTemplates {
		return it.uri
	}
	return it.name
}

// catalog caches one server's four lists. A list is fetched when first
// needed and dropped when the server says it changed or when the server's
// availability changes; a gateway holding many servers does not ask each
// for everything on every client's list request.
type catalog struct {
	lists [numLists]listCache
}

type listCache struct {
	fetching sync.Mutex // one fetch at a time; invalidate never waits for it

	mu    sync.Mutex
	items []item
	valid bool
	gen   uint64 // bumped by invalidate; a fetch that raced one is not kept
}

func (c *catalog) invalidate(k listKind) {
	l := &c.lists[k]
	l.mu.Lock()
	l.valid = false
	l.items = nil
	l.gen++
	l.mu.Unlock()
}

func (c *catalog) invalidateAll() {
	for k := range numLists {
		c.invalidate(k)
	}
}

// errNotOffered is returned for a list the server's capabilities do not
// include: it is empty, not an error.
var errNotOffered = errors.New("not offered")

// list returns the list, fetching it from a ready member if needed.
func (u *upstream) list(ctx context.Context, k listKind) ([]item, error) {
	l := &u.catalog.lists[k]
	if items, _, ok := l.cached(); ok {
		return items, nil
	}
	l.fetching.Lock()
	defer l.fetching.Unlock()
	items, gen, ok := l.cached() // fetched while this one waited?
	if ok {
		return items, nil
	}
	m := u.pool.pick(nil)
	if m == nil {
		return nil, unavailable(u.name, errors.New("no session ready"))
	}
	items, err := u.fetch(ctx, m, k)
	if errors.Is(err, errNotOffered) {
		items, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	if l.gen == gen {
		l.items, l.valid = items, true
	}
	l.mu.Unlock()
	return items, nil
}

// cached returns the list if it is valid, and the generation a fetch
// started now belongs to.
func (l *listCache) cached() ([]item, uint64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.items, l.gen, l.valid
}

// fetch reads every page of a list from one member.
func (u *upstream) fetch(ctx context.Context, m *member, k listKind) ([]item, error) {
	caps := m.s.Capabilities()
	switch {
	case k == listTools && caps.Tools == nil,
		(k == listResources || k == listTemplates) && caps.Resources == nil,
		k == listPrompts && caps.Prompts == nil:
		return nil, errNotOffered
	}
	var items []item
	cursor := ""
	for page := 0; ; page++ {
		if page == maxListPages {
			return nil, fmt.Errorf("%s of server %q has more than %d pages", k.method(), u.name, maxListPages)
		}
		var params any
		if cursor != "" {
			params = &messages.PaginatedParams{Cursor: cursor}
		}
		raw, err := m.s.call(ctx, k.method(), params, nil, false)
		if err != nil {
			if errors.Is(err, mcpengine.ErrCapabilityNotSupported) || errors.Is(err, messages.ErrMethodNotFound) {
				return nil, errNotOffered
			}
			return nil, err
		}
		var res map[string]messages.RawMessage
		if err := messages.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("%s of server %q: %w", k.method(), u.name, err)
		}
		var entries []messages.RawMessage
		if r := res[k.key()]; len(r) > 0 {
			if err := messages.Unmarshal(r, &entries); err != nil {
				return nil, fmt.Errorf("%s of server %q: %w", k.method(), u.name, err)
			}
		}
		for _, e := range entries {
			it, err := u.newItem(k, e)
			if err != nil {
				return nil, fmt.Errorf("%s of server %q: %w", k.method(), u.name, err)
			}
			items = append(items, it)
		}
		cursor = ""
		if err := messages.Unmarshal(orNull(res["nextCursor"]), &cursor); err != nil || cursor == "" {
			return items, nil
		}
	}
}

// maxListPages bounds pagination: a server whose cursors never end must
// not hold a list request forever.
const maxListPages = 1000

func orNull(r messages.RawMessage) messages.RawMessage {
	if len(r) == 0 {
		return messages.RawMessage("null")
	}
	return r
}

func (u *upstream) newItem(k listKind, raw messages.RawMessage) (item, error) {
	var probe struct {
		Name        string `json:"name"`
		URI         string `json:"uri"`
		URITemplate string `json:"uriTemplate"`
	}
	if err := messages.Unmarshal(raw, &probe); err != nil {
		return item{}, err
	}
	it := item{raw: raw, renamed: raw, name: probe.Name, uri: probe.URI}
	if k == listTemplates {
		it.uri = probe.URITemplate
		it.tmpl = parseURITemplate(probe.URITemplate)
	}
	if u.prefix != "" && probe.Name != "" {
		var obj map[string]messages.RawMessage
		if err := messages.Unmarshal(raw, &obj); err != nil {
			return item{}, err
		}
		obj["name"] = messages.AppendJSONString(nil, u.prefix+probe.Name)
		renamed, err := messages.Marshal(obj)
		if err != nil {
			return item{}, err
		}
		it.renamed = renamed
	}
	return it, nil
}
