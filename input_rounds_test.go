package mcpengine_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/internal/schemacheck"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/telemetry"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

// inputHandlers are an engine's Sampling, Elicitation and RootsHandler
// that count their calls; sampling answers with the prompt it was given.
type inputHandlers struct {
	sampling, elicitation, roots atomic.Int64
}

func (h *inputHandlers) config() mcpengine.Config {
	return mcpengine.Config{
		Sampling: func(_ context.Context, p *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			h.sampling.Add(1)
			blocks, _ := p.Messages[0].Blocks()
			return &messages.CreateMessageResult{Role: "assistant", Model: "m", Content: mustSampling(messages.TextContent("sampled " + blocks[0].Text))}, nil
		},
		Elicitation: func(context.Context, *messages.ElicitParams) (*messages.ElicitResult, error) {
			h.elicitation.Add(1)
			return &messages.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		RootsHandler: func(context.Context) ([]messages.Root, error) {
			h.roots.Add(1)
			return []messages.Root{{URI: "file:///handled", Name: "h"}}, nil
		},
	}
}

// modernDemo is the demo server of the stateless era only, over stdio
// (engine serve --era modern) or in process over Streamable HTTP.
func modernDemo(t *testing.T, kind eraServer) (mcpengine.ServerConfig, *posts) {
	return kind.start(t, []string{"--era", "modern"}, demoserver.Options{Versions: messages.ModernVersions})
}

// TestInputRequiredIsAnsweredByTheEnginesHandlers: against the demo server
// of the stateless era, over stdio and Streamable HTTP, sample, elicit and
// roots are each answered through the engine's handlers, in one round and
// in several, as one call; over HTTP each round is one more tools/call.
func TestInputRequiredIsAnsweredByTheEnginesHandlers(t *testing.T) {
	for _, kind := range eraServers {
		t.Run(kind.name, func(t *testing.T) {
			cfg, p := modernDemo(t, kind)
			h := &inputHandlers{}
			e := newEngine(t, h.config())
			ctx := testCtx(t, 30*time.Second)
			s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "mrtr", Server: cfg})
			require.NoError(t, err)
			require.Equal(t, messages.Version20260728, s.ProtocolVersion())

			res, err := s.CallTool(ctx, "sample", map[string]any{"prompt": "hello"})
			require.NoError(t, err)
			assert.Equal(t, "sampled hello", resultText(t, res))
			res, err = s.CallTool(ctx, "elicit", map[string]any{"message": "who?"})
			require.NoError(t, err)
			assert.Contains(t, resultText(t, res), `action=accept content={"name":"Ada"}`)
			res, err = s.CallTool(ctx, "roots", nil)
			require.NoError(t, err)
			assert.Equal(t, "file:///handled", resultText(t, res))
			assert.Equal(t, [3]int64{1, 1, 1}, [3]int64{h.sampling.Load(), h.elicitation.Load(), h.roots.Load()})

			// Three rounds, one call.
			f := s.CallAsync(ctx, messages.MethodToolsCall, map[string]any{"name": "sample", "arguments": map[string]any{"prompt": "again", "rounds": 3}})
			raw, err := f.Await(ctx)
			require.NoError(t, err)
			assert.Contains(t, string(raw), "sampled again")
			assert.Equal(t, int64(4), h.sampling.Load())
			if p != nil {
				assert.Equal(t, int64(3+3+4), p.count(messages.MethodToolsCall), "each round is one more tools/call")
				assert.Zero(t, p.srv.Stats().ServerRequests, "no server→client request in this era")
			}
		})
	}
}

// TestInputRequiredWithFixedRoots: Config.Roots answers roots/list input
// requests without a handler goroutine, as it answers the legacy request.
func TestInputRequiredWithFixedRoots(t *testing.T) {
	srv := demoserver.New(demoserver.Options{Versions: messages.ModernVersions})
	e := newEngine(t, mcpengine.Config{Roots: []messages.Root{{URI: "file:///fixed"}}})
	ctx := testCtx(t, 10*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "roots", Dialer: memoryDemo(t, srv)})
	require.NoError(t, err)
	res, err := s.CallTool(ctx, "roots", map[string]any{"rounds": 2})
	require.NoError(t, err)
	assert.Equal(t, "file:///fixed", resultText(t, res))
}

// TestInputHandlersDeclineAndFailAsTheSpecSays: an elicitation declined by
// its handler reaches the server as action "decline" in inputResponses; a
// sampling handler's error ends the call with an InputRequestError
// wrapping it and the request is not sent again (the specification has no
// error answer: the server is not waiting); a capability without a handler
// is not declared, so the server refuses with -32021.
func TestInputHandlersDeclineAndFailAsTheSpecSays(t *testing.T) {
	for _, kind := range eraServers {
		t.Run(kind.name, func(t *testing.T) {
			cfg, p := modernDemo(t, kind)
			boom := errors.New("the model is down")
			e := newEngine(t, mcpengine.Config{
				Sampling: func(context.Context, *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
					return nil, boom
				},
				Elicitation: func(context.Context, *messages.ElicitParams) (*messages.ElicitResult, error) {
					return &messages.ElicitResult{Action: "decline"}, nil
				},
			})
			ctx := testCtx(t, 30*time.Second)
			s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "decline", Server: cfg})
			require.NoError(t, err)

			res, err := s.CallTool(ctx, "elicit", map[string]any{"message": "who?"})
			require.NoError(t, err)
			assert.Equal(t, "action=decline content=null", resultText(t, res))

			_, err = s.CallTool(ctx, "sample", map[string]any{"prompt": "p"})
			var ire *mcpengine.InputRequestError
			require.ErrorAs(t, err, &ire)
			assert.ErrorIs(t, err, boom)
			assert.Equal(t, messages.MethodSamplingCreateMessage, ire.Request)
			assert.Equal(t, "sample-1", ire.Key)

			_, err = s.CallTool(ctx, "roots", nil)
			var mc *mcpengine.MissingCapabilityError
			require.ErrorAs(t, err, &mc, "no roots handler: not declared")
			assert.NotNil(t, mc.RequiredCapabilities.Roots)
			if p != nil {
				assert.Equal(t, int64(2+1+1), p.count(messages.MethodToolsCall), "the failed sampling was not sent again")
			}
			assert.Equal(t, mcpengine.StateReady, s.State())
		})
	}
}

// TestInputRoundsAreBounded: a server that asks for more rounds than
// MaxInputRounds fails the call with a typed InputRequiredError after that
// many rounds.
func TestInputRoundsAreBounded(t *testing.T) {
	for _, kind := range eraServers {
		t.Run(kind.name, func(t *testing.T) {
			cfg, p := modernDemo(t, kind)
			h := &inputHandlers{}
			e := newEngine(t, h.config())
			ctx := testCtx(t, 30*time.Second)
			s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "bounded", Server: cfg})
			require.NoError(t, err)
			_, err = s.CallTool(ctx, "sample", map[string]any{"prompt": "p", "rounds": mcpengine.MaxInputRounds + 1})
			var ir *mcpengine.InputRequiredError
			require.ErrorAs(t, err, &ir)
			assert.ErrorIs(t, err, mcpengine.ErrInputRequired)
			assert.Equal(t, mcpengine.MaxInputRounds, ir.Rounds)
			assert.Equal(t, map[string]string{"sample-9": messages.MethodSamplingCreateMessage}, ir.Requests)
			assert.Equal(t, int64(mcpengine.MaxInputRounds), h.sampling.Load())
			if p != nil {
				assert.Equal(t, int64(mcpengine.MaxInputRounds+1), p.count(messages.MethodToolsCall))
			}
			// The limit itself is reachable.
			res, err := s.CallTool(ctx, "sample", map[string]any{"prompt": "p", "rounds": mcpengine.MaxInputRounds})
			require.NoError(t, err)
			assert.Equal(t, "sampled p", resultText(t, res))
		})
	}
}

// TestTheCallersDeadlineBoundsTheWholeExchange: a handler that never
// answers leaves the call to the caller's deadline: a *TimeoutError that
// matches context.DeadlineExceeded, and the handler's ctx ends with it.
func TestTheCallersDeadlineBoundsTheWholeExchange(t *testing.T) {
	for _, kind := range eraServers {
		t.Run(kind.name, func(t *testing.T) {
			cfg, _ := modernDemo(t, kind)
			entered, left := make(chan struct{}, 1), make(chan error, 1)
			e := newEngine(t, mcpengine.Config{
				Elicitation: func(ctx context.Context, _ *messages.ElicitParams) (*messages.ElicitResult, error) {
					entered <- struct{}{}
					<-ctx.Done()
					left <- ctx.Err()
					return nil, ctx.Err()
				},
			})
			s, err := e.Connect(testCtx(t, 30*time.Second), mcpengine.SessionConfig{Name: "deadline", Server: cfg})
			require.NoError(t, err)

			for _, async := range []bool{false, true} {
				// The deadline ends once the exchange reached the handler:
				// a timer set at the call would, on a loaded machine, run
				// out before the server asked for input.
				ctx, stop := newTestDeadline(time.Hour), make(chan struct{})
				// Owned by this iteration: ends at the handler's entry or
				// when the call returned without it.
				go func() {
					select {
					case <-entered:
						ctx.expire()
					case <-stop:
					}
				}()
				if async {
					f := s.CallAsync(ctx, messages.MethodToolsCall, map[string]any{"name": "elicit", "arguments": map[string]any{"message": "m"}})
					_, err = f.Await(testCtx(t, 30*time.Second))
				} else {
					_, err = s.CallTool(ctx, "elicit", map[string]any{"message": "m"})
				}
				close(stop)
				var te *mcpengine.TimeoutError
				require.ErrorAs(t, err, &te, "async=%v", async)
				assert.ErrorIs(t, err, context.DeadlineExceeded)
				assert.True(t, te.CallerDeadline)
				select {
				case err := <-left:
					assert.Error(t, err, "the handler's ctx ended with the call")
				case <-time.After(30 * time.Second):
					t.Fatal("the handler's ctx did not end with the call")
				}
			}
			// The session goes on.
			_, err = s.CallTool(testCtx(t, 10*time.Second), "echo", map[string]any{"text": "x"})
			require.NoError(t, err)
		})
	}
}

// TestAnInputRequestWithoutHandlerEndsTheCall: a server that sends an
// input request the client did not declare gets no retry; the call fails
// at once with an InputRequestError matching ErrNoInputHandler.
func TestAnInputRequestWithoutHandlerEndsTheCall(t *testing.T) {
	var calls atomic.Int64
	dialer := modernScripted(func(req messages.Message) [][]byte {
		calls.Add(1)
		return [][]byte{messages.AppendResult(nil, req.ID, messages.RawMessage(
			`{"resultType":"input_required","inputRequests":{"k":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}},"requestState":"s"}`))}
	})
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 10*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "nohandler", Dialer: dialer})
	require.NoError(t, err)
	_, err = s.CallTool(ctx, "t", nil)
	var ire *mcpengine.InputRequestError
	require.ErrorAs(t, err, &ire)
	assert.ErrorIs(t, err, mcpengine.ErrNoInputHandler)
	assert.Equal(t, int64(1), calls.Load())
}

// modernScripted is a server of the stateless era on a memory pipe:
// server/discover is answered, every other request goes to answer.
func modernScripted(answer func(req messages.Message) [][]byte) transport.Dialer {
	return memory.NewDialer("scripted-modern", func(conn transport.Conn) {
		defer conn.Close(context.Background())
		for {
			frame, err := conn.ReadFrame()
			if err != nil {
				return
			}
			msgs, _ := messages.DecodeFrame(frame)
			for _, m := range msgs {
				if m.Kind != messages.KindRequest {
					continue
				}
				out := [][]byte{messages.AppendResult(nil, m.ID, messages.RawMessage(
					`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"scripted","version":"1"}}}`))}
				if m.Method != messages.MethodServerDiscover {
					out = answer(m)
				}
				if conn.WriteFrames(out...) != nil {
					return
				}
			}
		}
	})
}

// TestInputRoundsAreOneCallSpanWithAnEventPerRound: the call span covers
// the rounds (one span, an event per round with its number and the
// methods asked for) and each handler's span is its child.
func TestInputRoundsAreOneCallSpanWithAnEventPerRound(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	h := &inputHandlers{}
	cfg := h.config()
	cfg.Telemetry = telemetry.Providers{Tracer: tp}
	e := newEngine(t, cfg)
	ctx := testCtx(t, 10*time.Second)
	srv := demoserver.New(demoserver.Options{Versions: messages.ModernVersions})
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "spans", Dialer: memoryDemo(t, srv)})
	require.NoError(t, err)
	_, err = s.CallTool(ctx, "sample", map[string]any{"prompt": "p", "rounds": 2})
	require.NoError(t, err)

	var calls, handlers []tracetest.SpanStub
	for _, st := range spans.GetSpans() {
		switch st.Name {
		case "tools/call sample":
			calls = append(calls, st)
		case messages.MethodSamplingCreateMessage:
			handlers = append(handlers, st)
		}
	}
	require.Len(t, calls, 1, "one call span for the whole exchange")
	call := calls[0]
	var rounds []string
	for _, ev := range call.Events {
		if ev.Name == telemetry.EventInputRequired {
			a := attrs(ev.Attributes)
			rounds = append(rounds, a[telemetry.AttrInputRound]+" "+a[telemetry.AttrInputRequests])
		}
	}
	assert.Equal(t, []string{`1 ["sampling/createMessage"]`, `2 ["sampling/createMessage"]`}, rounds)
	require.Len(t, handlers, 2)
	for _, hs := range handlers {
		assert.Equal(t, call.SpanContext.SpanID(), hs.Parent.SpanID(), "a handler's span is a child of the call's")
	}
}

// TestEverythingSentInInputRoundsValidatesAgainstThe2026Schema: the
// retried requests (inputResponses, requestState) and the _meta declaring
// the handlers' capabilities validate against the 2026-07-28 schema.
func TestEverythingSentInInputRoundsValidatesAgainstThe2026Schema(t *testing.T) {
	rec := &recorder{}
	h := &inputHandlers{}
	e := newEngine(t, h.config())
	srv := demoserver.New(demoserver.Options{Versions: messages.ModernVersions})
	ctx := testCtx(t, 10*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "schema", Dialer: recordingDialer{memoryDemo(t, srv), rec}})
	require.NoError(t, err)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{{"sample", map[string]any{"prompt": "p", "rounds": 2}}, {"elicit", map[string]any{"message": "m"}}, {"roots", nil}} {
		_, err := s.CallTool(ctx, c.tool, c.args)
		require.NoError(t, err, c.tool)
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	retries := 0
	for _, frame := range rec.sent {
		require.NoError(t, schemacheck.Validate(messages.Version20260728, frame), "%s", frame)
		msgs, _ := messages.DecodeFrame(frame)
		for _, m := range msgs {
			var p struct {
				Meta           map[string]messages.RawMessage `json:"_meta"`
				InputResponses map[string]messages.RawMessage `json:"inputResponses"`
				RequestState   string                         `json:"requestState"`
			}
			require.NoError(t, messages.Unmarshal(m.Params, &p))
			assert.JSONEq(t, `{"sampling":{},"elicitation":{},"roots":{}}`, string(p.Meta[messages.MetaClientCapabilities]))
			if len(p.InputResponses) > 0 {
				retries++
				assert.NotEmpty(t, p.RequestState)
			}
		}
	}
	assert.Equal(t, 4, retries)
}

// resultText is a tool result's first text, checking it is no tool error.
func resultText(t *testing.T, res *messages.CallToolResult) string {
	t.Helper()
	require.False(t, res.IsError, "%+v", res)
	require.NotEmpty(t, res.Content)
	return res.Content[0].Text
}

// TestPerSessionHandlersAnswerInputRequests: a session's own handler
// overrides the engine's for input requests too (one handler API for both
// eras), and its capability is declared for that session.
func TestPerSessionHandlersAnswerInputRequests(t *testing.T) {
	h := &inputHandlers{}
	e := newEngine(t, h.config())
	srv := demoserver.New(demoserver.Options{Versions: messages.ModernVersions})
	ctx := testCtx(t, 10*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "override", Dialer: memoryDemo(t, srv),
		Sampling: func(context.Context, *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			return &messages.CreateMessageResult{Role: "assistant", Model: "m", Content: mustSampling(messages.TextContent("from the session"))}, nil
		}})
	require.NoError(t, err)
	res, err := s.CallTool(ctx, "sample", map[string]any{"prompt": "p"})
	require.NoError(t, err)
	assert.Equal(t, "from the session", resultText(t, res))
	assert.Zero(t, h.sampling.Load())
}

// TestCancellingACallWhileItsHandlersRunEndsThem: Future.Cancel during a
// round fails the call with context.Canceled at once and ends the
// handler's ctx; nothing more is sent.
func TestCancellingACallWhileItsHandlersRunEndsThem(t *testing.T) {
	entered, left := make(chan struct{}, 1), make(chan error, 1)
	e := newEngine(t, mcpengine.Config{
		Elicitation: func(ctx context.Context, _ *messages.ElicitParams) (*messages.ElicitResult, error) {
			entered <- struct{}{}
			<-ctx.Done()
			left <- ctx.Err()
			return nil, ctx.Err()
		},
	})
	url, p := countingDemoHTTP(t, demoserver.Options{Versions: messages.ModernVersions})
	ctx := testCtx(t, 10*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "cancel", Server: mcpengine.ServerConfig{URL: url, Type: "streamable-http"}})
	require.NoError(t, err)
	f := s.CallAsync(ctx, messages.MethodToolsCall, map[string]any{"name": "elicit", "arguments": map[string]any{"message": "m"}})
	<-entered
	f.Cancel()
	_, err = f.Await(ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, <-left, context.Canceled)
	_, err = s.CallTool(ctx, "echo", map[string]any{"text": "x"})
	require.NoError(t, err)
	assert.Equal(t, int64(2), p.count(messages.MethodToolsCall), "the cancelled call was not sent again")
}

// lastConnDialer remembers the last connection it dialed, for a test to
// break.
type lastConnDialer struct {
	inner transport.Dialer
	conns chan transport.Conn
}

func (d lastConnDialer) Dial(ctx context.Context) (transport.Conn, error) {
	c, err := d.inner.Dial(ctx)
	if err == nil {
		d.conns <- c
	}
	return c, err
}

func (d lastConnDialer) String() string { return d.inner.String() }

// TestARoundOutlivesALostConnection: the connection dies while a round's
// handler runs; the call is not on the wire, so it is not failed: its next
// round waits for the reconnect and completes the call (the in-process
// demo server keeps its requestState key across connections).
func TestARoundOutlivesALostConnection(t *testing.T) {
	entered, release := make(chan struct{}, 1), make(chan struct{})
	e := newEngine(t, mcpengine.Config{
		Elicitation: func(ctx context.Context, _ *messages.ElicitParams) (*messages.ElicitResult, error) {
			entered <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &messages.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
	})
	srv := demoserver.New(demoserver.Options{Versions: messages.ModernVersions})
	d := lastConnDialer{inner: memoryDemo(t, srv), conns: make(chan transport.Conn, 4)}
	ctx := testCtx(t, 10*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "outlives", Dialer: d})
	require.NoError(t, err)
	first := <-d.conns
	f := s.CallAsync(ctx, messages.MethodToolsCall, map[string]any{"name": "elicit", "arguments": map[string]any{"message": "m"}})
	<-entered
	require.NoError(t, first.Close(ctx))
	<-d.conns // the reconnect dialed
	close(release)
	raw, err := f.Await(ctx)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `action=accept content={\"name\":\"Ada\"}`)
}

// testDeadline is a context with a deadline that ends when the test says
// (expire), not when a clock says: to the engine it is a caller's
// deadline running out (Err is context.DeadlineExceeded).
type testDeadline struct {
	context.Context
	deadline time.Time
	done     chan struct{}
	once     sync.Once
}

func newTestDeadline(in time.Duration) *testDeadline {
	return &testDeadline{Context: context.Background(), deadline: time.Now().Add(in), done: make(chan struct{})}
}

func (d *testDeadline) expire()                     { d.once.Do(func() { close(d.done) }) }
func (d *testDeadline) Deadline() (time.Time, bool) { return d.deadline, true }
func (d *testDeadline) Done() <-chan struct{}       { return d.done }

func (d *testDeadline) Err() error {
	select {
	case <-d.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}
