package telemetry

import (
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// metricKey is what distinguishes one operation-duration series: the
// conventions' low-cardinality attributes. A comparable struct, so looking
// a set up allocates nothing.
type metricKey struct {
	method, transport, version, tool, prompt, errType, status string
}

// attrCache keeps the record options (the attribute.Set, boxed as an
// option) of every series seen and the span names of tool and prompt calls:
// building them per call (sorting, a slice, boxing the set, a string
// concatenation) was a fifth of telemetry's allocations.
type attrCache struct {
	mu    sync.RWMutex
	opts  map[metricKey][]metric.RecordOption
	names map[[2]string]string
}

// recordOptions are the options that record a point of series k. The
// slice is shared by every caller: pass it on, never append to it.
func (c *attrCache) recordOptions(k metricKey) []metric.RecordOption {
	c.mu.RLock()
	o, ok := c.opts[k]
	c.mu.RUnlock()
	if ok {
		return o
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
	o = []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(kv...))}
	c.mu.Lock()
	if c.opts == nil {
		c.opts = map[metricKey][]metric.RecordOption{}
	}
	c.opts[k] = o
	c.mu.Unlock()
	return o
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
