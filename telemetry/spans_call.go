package telemetry

import (
	"context"
	"strconv"
	"time"

	"github.com/bytedance/sonic"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpengine/mcpengine/messages"
)

// CallSpan follows one request from the caller's Call to its answer: a
// client span named by the MCP conventions and one point of
// mcp.client.operation.duration. Finished may run on the session actor;
// Progress on the callback dispatcher; Cancelled on the caller.
type CallSpan struct {
	t     *Telemetry
	ctx   context.Context
	span  trace.Span
	start time.Time
	// key names the metric series (low cardinality: no ids, no URIs); the
	// outcome is filled in by Finished.
	key metricKey

	// Room for what a call hands to the span and the propagator, so that
	// it comes with the CallSpan's one allocation instead of one each.
	// Each part is written once and left alone after, in case a tracer
	// keeps the slice it was given.
	startAttrs [10]attribute.KeyValue // peer (≤4), method, version, target (≤2), args or URI, session id
	endAttrs   [3]attribute.KeyValue  // request id, error.type, status code
	meta       metaFields
}

// clientKind is a slice so that passing it to Start does not allocate one
// per call.
var clientKind = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}

// StartCall starts the span of a request about to be sent and returns the
// params to send: params with the span's trace context (traceparent,
// tracestate, baggage) in _meta so the server can continue the trace. On a
// nil Telemetry it returns (nil, params).
func (t *Telemetry) StartCall(ctx context.Context, peer Peer, protocolVersion, sessionID, method string, params messages.RawMessage) (*CallSpan, messages.RawMessage) {
	if t == nil {
		return nil, params
	}
	cs := &CallSpan{t: t, key: metricKey{method: method, transport: string(peer.Transport), version: protocolVersion}}
	attrs := append(cs.startAttrs[:0], peer.attrs()...)
	attrs = append(attrs, semconv.McpMethodNameKey.String(method))
	if protocolVersion != "" {
		attrs = append(attrs, semconv.McpProtocolVersion(protocolVersion))
	}
	target := ""
	var kind messages.TargetKind
	if spec, ok := messages.LookupMethod(method); ok {
		kind = spec.Target
	}
	switch kind {
	case messages.TargetTool:
		if tool := paramString(params, "name"); tool != "" {
			target, cs.key.tool = tool, tool
			attrs = append(attrs, semconv.GenAIToolName(tool), semconv.GenAIOperationNameExecuteTool)
		}
		if t.opts.RecordArguments {
			if args, err := sonic.Get(params, "arguments"); err == nil {
				if raw, err := args.Raw(); err == nil {
					attrs = append(attrs, semconv.GenAIToolCallArgumentsKey.String(raw))
				}
			}
		}
	case messages.TargetPrompt:
		if prompt := paramString(params, "name"); prompt != "" {
			target, cs.key.prompt = prompt, prompt
			attrs = append(attrs, semconv.GenAIPromptName(prompt))
		}
	case messages.TargetResource:
		if uri := paramString(params, "uri"); uri != "" {
			attrs = append(attrs, semconv.McpResourceURI(uri))
		}
	}
	if sessionID != "" {
		attrs = append(attrs, semconv.McpSessionID(sessionID))
	}
	cs.ctx, cs.span = t.tracer.Start(ctx, t.cache.spanName(method, target), clientKind...)
	cs.span.SetAttributes(attrs...)
	cs.start = time.Now()
	t.inFlight.Add(cs.ctx, 1)
	return cs, cs.meta.inject(cs.ctx, t.propagator, params)
}

// metaFields is a propagation carrier that writes straight into the _meta
// fields to splice: W3C trace context and baggage set at most three keys.
type metaFields struct {
	f [3]messages.MetaField
	n int
	// buf holds the quoted values while they fit: a traceparent takes 57
	// bytes; a tracestate or baggage too long for the rest goes to the heap.
	buf  [64]byte
	used int
}

// inject writes ctx's trace context and baggage into params._meta.
func (c *metaFields) inject(ctx context.Context, p propagation.TextMapPropagator, params messages.RawMessage) messages.RawMessage {
	p.Inject(ctx, c)
	if c.n == 0 {
		return params
	}
	return messages.WithMeta(params, c.f[:c.n]...)
}

func (c *metaFields) Get(string) string { return "" }

func (c *metaFields) Set(key, value string) {
	if c.n == len(c.f) {
		return
	}
	free := c.buf[c.used:]
	v := messages.AppendJSONString(free[:0], value)
	if len(v) <= len(free) { // append never outgrew buf: v lies in it
		c.used += len(v)
		v = v[:len(v):len(v)]
	}
	c.f[c.n] = messages.MetaField{Key: key, Value: v}
	c.n++
}

func (c *metaFields) Keys() []string {
	keys := make([]string, c.n)
	for i := range c.n {
		keys[i] = c.f[i].Key
	}
	return keys
}

// Progress records a progress notification as a span event.
func (s *CallSpan) Progress(p messages.ProgressParams) {
	if s == nil {
		return
	}
	attrs := []attribute.KeyValue{attribute.Float64("mcp.progress", p.Progress)}
	if p.Total != nil {
		attrs = append(attrs, attribute.Float64("mcp.progress.total", *p.Total))
	}
	s.span.AddEvent(messages.NotificationProgress, trace.WithAttributes(attrs...))
}

// Cancelled records that the caller gave up on the request (the engine
// sends notifications/cancelled).
func (s *CallSpan) Cancelled(reason error) {
	if s == nil {
		return
	}
	attrs := []attribute.KeyValue{}
	if reason != nil {
		attrs = append(attrs, attribute.String("mcp.cancel.reason", reason.Error()))
	}
	s.span.AddEvent(messages.NotificationCancelled, trace.WithAttributes(attrs...))
}

// Finished ends the span and records the operation's duration. id is the
// JSON-RPC request id (0 when the request was never sent). A tool result
// with isError true is a failure of type "tool_error", as the conventions
// say; a JSON-RPC error is typed by its code.
func (s *CallSpan) Finished(id int64, result messages.RawMessage, err error) {
	if s == nil {
		return
	}
	s.t.inFlight.Add(s.ctx, -1)
	attrs := s.endAttrs[:0]
	if id != 0 {
		attrs = append(attrs, semconv.JSONRPCRequestID(strconv.FormatInt(id, 10)))
	}
	errType, status := "", ""
	switch {
	case err != nil:
		errType, status = classify(err)
		s.span.RecordError(err)
		s.span.SetStatus(codes.Error, err.Error())
	case s.key.method == messages.MethodToolsCall && messages.ToolResultIsError(result):
		errType = "tool_error"
		s.span.SetStatus(codes.Error, "tool returned isError")
	}
	if errType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(errType))
	}
	if status != "" {
		attrs = append(attrs, semconv.RPCResponseStatusCode(status))
	}
	s.span.SetAttributes(attrs...)
	s.key.errType, s.key.status = errType, status
	s.t.operationDuration.Float64Histogram.Record(s.ctx, time.Since(s.start).Seconds(), s.t.cache.recordOptions(s.key)...)
	s.span.End()
}

func paramString(params messages.RawMessage, key string) string {
	if len(params) == 0 {
		return ""
	}
	n, err := sonic.Get(params, key)
	if err != nil {
		return ""
	}
	v, err := n.String()
	if err != nil {
		return ""
	}
	return v
}

// Context returns the span's context, for work done on the call's behalf
// (the handlers of its input requests); context.Background on a nil span.
func (s *CallSpan) Context() context.Context {
	if s == nil {
		return context.Background()
	}
	return s.ctx
}

// InputRequired records one round of a 2026-07-28 multi round-trip
// request: the server answered input_required for the round-th time,
// asking for these input requests (their methods, sorted).
func (s *CallSpan) InputRequired(round int, methods []string) {
	if s == nil {
		return
	}
	s.span.AddEvent(EventInputRequired, trace.WithAttributes(
		attribute.Int(AttrInputRound, round),
		attribute.StringSlice(AttrInputRequests, methods)))
}

// The span event of an input_required round and its attributes.
const (
	EventInputRequired = "mcp.input_required"
	AttrInputRound     = "mcp.input_required.round"
	AttrInputRequests  = "mcp.input_required.requests"
)
