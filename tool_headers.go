package mcpengine

import (
	"net/http"
	"sync"

	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/messages"
)

// headerTools remembers, per tool of a 2026-07-28 server, the arguments
// its inputSchema mirrors into Mcp-Param-* headers (SEP-2243:
// x-mcp-header), as its tools/list said, so that CallTool sends them over
// Streamable HTTP, where a server or an intermediary may route or check a
// request by them without reading the body. Made on the first tools/list
// that annotates anything: sessions whose server annotates nothing carry
// a nil pointer.
type headerTools struct {
	m sync.Map // tool name -> []messages.HeaderParam
}

// learnHeaders records the header arguments of tools and returns the
// tools a client may call: in the 2026-07-28 era, one whose annotations
// break the rules is left out (SEP-2243: clients must exclude it, as no
// server could rely on its headers), with a warning in the engine's log.
// Other eras have no such headers: tools are returned as they are.
func (s *Session) learnHeaders(tools []messages.Tool) []messages.Tool {
	if s.Era() != EraModern {
		return tools
	}
	var kept []messages.Tool // made at the first tool left out
	for i := range tools {
		params, err := messages.ToolHeaderParams(tools[i].InputSchema)
		if err != nil {
			s.engine.cfg.Logger.Warn("mcpengine: tool left out: invalid x-mcp-header annotation",
				"session", s.name, "tool", tools[i].Name, "err", err)
			if kept == nil {
				kept = append(make([]messages.Tool, 0, len(tools)), tools[:i]...)
			}
			continue
		}
		ht := s.headers.Load()
		switch {
		case len(params) > 0 && ht == nil:
			s.headers.CompareAndSwap(nil, &headerTools{})
			s.headers.Load().m.Store(tools[i].Name, params)
		case len(params) > 0:
			ht.m.Store(tools[i].Name, params)
		case ht != nil:
			ht.m.Delete(tools[i].Name)
		}
		if kept != nil {
			kept = append(kept, tools[i])
		}
	}
	if kept == nil {
		return tools
	}
	return kept
}

// withParamHeaders returns opts with, for a call of tool name, the option
// that sets its Mcp-Param-* headers (after the caller's, which it
// overrides); opts itself when there are none. The caller's slice is
// never written to.
func (s *Session) withParamHeaders(name string, args any, opts []CallOption) []CallOption {
	if hopts := s.headerOptions(name, args); hopts != nil {
		return append(opts[:len(opts):len(opts)], hopts...)
	}
	return opts
}

// headerOptions returns, for a call of tool name, the option that sets
// its Mcp-Param-* headers: each annotated argument present and not null,
// its value as HeaderParamValue gives it, Base64-encoded when not plain
// ASCII. Nil when the tool mirrors nothing (or was never listed).
func (s *Session) headerOptions(name string, args any) []CallOption {
	ht := s.headers.Load()
	if ht == nil {
		return nil
	}
	v, ok := ht.m.Load(name)
	if !ok {
		return nil
	}
	values, ok := args.(map[string]any)
	if !ok {
		// Arguments of another type (a struct, raw JSON): seen as the
		// server will see them.
		raw, err := messages.Marshal(args)
		if err != nil || messages.Unmarshal(raw, &values) != nil {
			return nil
		}
	}
	h := http.Header{}
	for _, p := range v.([]messages.HeaderParam) {
		if s, ok := messages.HeaderParamValue(values[p.Property]); ok {
			h.Set("Mcp-Param-"+p.Header, messages.EncodeHeaderValue(s))
		}
	}
	if len(h) == 0 {
		return nil
	}
	return []CallOption{{func(c *actors.Call) {
		if c.Header == nil {
			c.Header = http.Header{}
		}
		for k, vs := range h {
			c.Header[k] = vs // the annotation's value wins over a caller's WithHeader of the same name
		}
	}}}
}
