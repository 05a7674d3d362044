package telemetry

import (
	"sync"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// metricKey is what distinguishes one operation-duration series: the
// conventions' low-cardinality attributes. A comparable struct, so looking
// a set up allocates nothing.
type metricKey struct {
	method, transport, version, tool, prompt, errType, status string
}

// attrCache keeps the attribute.Set of every series seen and the span names
// of tool and prompt calls: building them per call (sorting, a slice, a
// string concatenation) was a fifth of telemetry's allocations.
type attrCache struct {
	mu    sync.RWMutex
	sets  map[metricKey]attribute.Set
	names map[[2]string]string
}

func (c *attrCache) set(k metricKey) attribute.Set {
	c.mu.RLock()
	s, ok := c.sets[k]
	c.mu.RUnlock()
	if ok {
		return s
	}
	kv := make([]attribute.KeyValue, 0, 7)
	kv = append(kv, semconv.McpMethodNameKey.String(k.method))
	if k.transport != "" {
		kv = append(kv, semconv.NetworkTransportKey.String(k.transport))
	}
	if k.version != "" {
		kv = append(kv, semconv.McpProtocolVersion(k.version))
	}
	if k.tool != "" {
		kv = append(kv, semconv.GenAIToolName(k.tool))
	}
	if k.prompt != "" {
		kv = append(kv, semconv.GenAIPromptName(k.prompt))
	}
	if k.errType != "" {
		kv = append(kv, semconv.ErrorTypeKey.String(k.errType))
	}
	if k.status != "" {
		kv = append(kv, semconv.RPCResponseStatusCode(k.status))
	}
	s = attribute.NewSet(kv...)
	c.mu.Lock()
	if c.sets == nil {
		c.sets = map[metricKey]attribute.Set{}
	}
	c.sets[k] = s
	c.mu.Unlock()
	return s
}

// spanName is "METHOD TARGET" (tools/call echo), built once per pair.
func (c *attrCache) spanName(method, target string) string {
	if target == "" {
		return method
	}
	k := [2]string{method, target}
	c.mu.RLock()
	n, ok := c.names[k]
	c.mu.RUnlock()
	if ok {
		return n
	}
	n = method + " " + target
	c.mu.Lock()
	if c.names == nil {
		c.names = map[[2]string]string{}
	}
	c.names[k] = n
	c.mu.Unlock()
	return n
}
