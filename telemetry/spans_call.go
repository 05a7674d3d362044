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
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpengine/mcpengine/messages"
)

// Peer describes the server side of a session, constant for its life.
type Peer struct {
	// SessionName is the engine's name for the session (not a convention
	// attribute: mcp.session.id is the server-assigned id of HTTP sessions).
	SessionName string
	// Transport is network.transport: "pipe" for stdio and in-process
	// pipes, "tcp" for HTTP and WebSocket.
	Transport mcpconv.NetworkTransportAttr
	// ServerAddress and ServerPort are set for network transports.
	ServerAddress string
	ServerPort    int

	kv []attribute.KeyValue // see Prepare
}

// AttrSessionName carries the engine's session name on every span.
const AttrSessionName = attribute.Key("mcpengine.session.name")

// Prepare computes the peer's span attributes once, so that calls do not
// rebuild them; the engine prepares each session's peer.
func (p Peer) Prepare() Peer {
	p.kv = p.build()
	return p
}

func (p Peer) attrs() []attribute.KeyValue {
	if p.kv != nil {
		return p.kv
	}
	return p.build()
}

func (p Peer) build() []attribute.KeyValue {
	out := []attribute.KeyValue{AttrSessionName.String(p.SessionName)}
	if p.Transport != "" {
		out = append(out, semconv.NetworkTransportKey.String(string(p.Transport)))
	}
	if p.ServerAddress != "" {
		out = append(out, semconv.ServerAddress(p.ServerAddress))
		if p.ServerPort != 0 {
			out = append(out, semconv.ServerPort(p.ServerPort))
		}
	}
	return out
}

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
}

var clientKind = trace.WithSpanKind(trace.SpanKindClient)

// StartCall starts the span of a request about to be sent and returns the
// params to send: params with the span's trace context (traceparent,
// tracestate, baggage) in _meta so the server can continue the trace. On a
// nil Telemetry it returns (nil, params).
func (t *Telemetry) StartCall(ctx context.Context, peer Peer, protocolVersion, sessionID, method string, params messages.RawMessage) (*CallSpan, messages.RawMessage) {
	if t == nil {
		return nil, params
	}
	cs := &CallSpan{t: t, key: metricKey{method: method, transport: string(peer.Transport), version: protocolVersion}}
	attrs := make([]attribute.KeyValue, 0, 12)
	attrs = append(attrs, peer.attrs()...)
	attrs = append(attrs, semconv.McpMethodNameKey.String(method))
	if protocolVersion != "" {
		attrs = append(attrs, semconv.McpProtocolVersion(protocolVersion))
	}
	target := ""
	switch method {
	case messages.MethodToolsCall:
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
	case messages.MethodPromptsGet:
		if prompt := paramString(params, "name"); prompt != "" {
			target, cs.key.prompt = prompt, prompt
			attrs = append(attrs, semconv.GenAIPromptName(prompt))
		}
	case messages.MethodResourcesRead, messages.MethodResourcesSubscribe, messages.MethodResourcesUnsubscribe:
		if uri := paramString(params, "uri"); uri != "" {
			attrs = append(attrs, semconv.McpResourceURI(uri))
		}
	}
	if sessionID != "" {
		attrs = append(attrs, semconv.McpSessionID(sessionID))
	}
	cs.ctx, cs.span = t.tracer.Start(ctx, t.cache.spanName(method, target), clientKind)
	cs.span.SetAttributes(attrs...)
	cs.start = time.Now()
	t.inFlight.Add(cs.ctx, 1)
	return cs, InjectMeta(cs.ctx, t.propagator, params)
}

// InjectMeta writes ctx's trace context and baggage into params._meta.
func InjectMeta(ctx context.Context, p propagation.TextMapPropagator, params messages.RawMessage) messages.RawMessage {
	var c metaFields
	p.Inject(ctx, &c)
	if c.n == 0 {
		return params
	}
	return messages.WithMeta(params, c.f[:c.n]...)
}

// metaFields is a propagation carrier that writes straight into the _meta
// fields to splice: W3C trace context and baggage set at most three keys.
type metaFields struct {
	f [3]messages.MetaField
	n int
}

func (c *metaFields) Get(string) string { return "" }

func (c *metaFields) Set(key, value string) {
	if c.n < len(c.f) {
		c.f[c.n] = messages.MetaField{Key: key, Value: messages.AppendJSONString(nil, value)}
		c.n++
	}
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
	if id != 0 {
		s.span.SetAttributes(semconv.JSONRPCRequestID(strconv.FormatInt(id, 10)))
	}
	errType, status := "", ""
	switch {
	case err != nil:
		errType, status = classify(err)
		s.span.RecordError(err)
		s.span.SetStatus(codes.Error, err.Error())
	case s.key.method == messages.MethodToolsCall && isToolError(result):
		errType = "tool_error"
		s.span.SetStatus(codes.Error, "tool returned isError")
	}
	if errType != "" {
		s.span.SetAttributes(semconv.ErrorTypeKey.String(errType))
	}
	if status != "" {
		s.span.SetAttributes(semconv.RPCResponseStatusCode(status))
	}
	s.key.errType, s.key.status = errType, status
	s.t.operationDuration.RecordSet(s.ctx, time.Since(s.start).Seconds(), s.t.cache.set(s.key))
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

func isToolError(result messages.RawMessage) bool {
	n, err := sonic.Get(result, "isError")
	if err != nil {
		return false
	}
	v, err := n.Bool()
	return err == nil && v
}
