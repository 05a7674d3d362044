package mcpengine_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/internal/schemacheck"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// recorder keeps every frame the engine wrote and every frame it read.
type recorder struct {
	mu       sync.Mutex
	sent     [][]byte
	received [][]byte
}

type recordingDialer struct {
	inner transport.Dialer
	rec   *recorder
}

func (d recordingDialer) Dial(ctx context.Context) (transport.Conn, error) {
	c, err := d.inner.Dial(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Conn: c, rec: d.rec}, nil
}

func (d recordingDialer) String() string { return d.inner.String() }

type recordingConn struct {
	transport.Conn
	rec *recorder
}

func (c *recordingConn) WriteFrames(frames ...[]byte) error {
	c.rec.mu.Lock()
	for _, f := range frames {
		c.rec.sent = append(c.rec.sent, append([]byte(nil), f...))
	}
	c.rec.mu.Unlock()
	return c.Conn.WriteFrames(frames...)
}

func (c *recordingConn) ReadFrame() ([]byte, error) {
	f, err := c.Conn.ReadFrame()
	if err == nil {
		c.rec.mu.Lock()
		c.rec.received = append(c.rec.received, append([]byte(nil), f...))
		c.rec.mu.Unlock()
	}
	return f, err
}

// TestEverythingTheEngineSendsValidatesAgainstTheNegotiatedVersionsSchema
// drives every client feature against a server pinned to each legacy
// version and checks each frame the engine wrote against that version's
// official JSON Schema (initialize against the offered version's).
func TestEverythingTheEngineSendsValidatesAgainstTheNegotiatedVersionsSchema(t *testing.T) {
	for _, version := range messages.SupportedVersions {
		t.Run(version, func(t *testing.T) {
			rec := &recorder{}
			e := newEngine(t, mcpengine.Config{
				Roots: []messages.Root{{URI: "file:///work", Name: "work"}},
				Sampling: func(context.Context, *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
					return &messages.CreateMessageResult{Role: "assistant", Model: "m", Content: mustSampling(messages.TextContent("ok"))}, nil
				},
				Elicitation: func(context.Context, *messages.ElicitParams) (*messages.ElicitResult, error) {
					return &messages.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "ok": true}}, nil
				},
			})
			srv := demoserver.New(demoserver.Options{Versions: []string{version}})
			s, err := e.Connect(testCtx(t, 10*time.Second), mcpengine.SessionConfig{
				Name: "schema", Dialer: recordingDialer{memoryDemo(t, srv), rec},
			})
			require.NoError(t, err)
			require.Equal(t, version, s.ProtocolVersion())
			exerciseEverything(t, s, version)

			rec.mu.Lock()
			defer rec.mu.Unlock()
			require.Greater(t, len(rec.sent), 2)
			// The era probe, which this legacy server refuses, goes out in
			// the stateless era's version; then initialize in the newest
			// legacy one.
			require.Contains(t, string(rec.sent[0]), messages.MethodServerDiscover)
			require.NoError(t, schemacheck.Validate(messages.LatestModernVersion, rec.sent[0]), "server/discover: %s", rec.sent[0])
			require.NoError(t, schemacheck.Validate(messages.LatestVersion, rec.sent[1]), "initialize: %s", rec.sent[1])
			serverMethods := methodsByID(t, rec.received)
			methodsSeen := map[string]bool{}
			for _, frame := range rec.sent[2:] {
				require.NoError(t, schemacheck.Validate(version, frame), "%s", frame)
				msgs, errs := messages.DecodeFrame(frame)
				require.Empty(t, errs)
				for _, m := range msgs {
					switch m.Kind {
					case messages.KindResponse:
						method := serverMethods[m.ID.String()]
						methodsSeen["result of "+method] = true
						if m.Result != nil {
							require.NoError(t, schemacheck.ValidateResult(version, method, m.Result), "%s result: %s", method, m.Result)
						}
					default:
						methodsSeen[m.Method] = true
					}
				}
			}
			for _, want := range []string{
				messages.NotificationInitialized, messages.MethodToolsList, messages.MethodToolsCall,
				messages.MethodResourcesList, messages.MethodResourcesTemplatesList, messages.MethodResourcesRead,
				messages.MethodResourcesSubscribe, messages.MethodResourcesUnsubscribe, messages.MethodPromptsList,
				messages.MethodPromptsGet, messages.MethodCompletionComplete, messages.MethodLoggingSetLevel,
				messages.MethodPing, messages.NotificationCancelled, messages.NotificationRootsListChanged,
				"result of " + messages.MethodRootsList, "result of " + messages.MethodSamplingCreateMessage,
			} {
				assert.True(t, methodsSeen[want], "the test exercised %s", want)
			}
			if messages.VersionAtLeast(version, messages.Version20250618) {
				assert.True(t, methodsSeen["result of "+messages.MethodElicitationCreate])
			}
		})
	}
}

func exerciseEverything(t *testing.T, s *mcpengine.Session, version string) {
	ctx := testCtx(t, 20*time.Second)
	_, err := s.ListTools(ctx)
	require.NoError(t, err)
	_, err = s.CallTool(ctx, "echo", map[string]any{"text": "x"})
	require.NoError(t, err)
	_, err = s.CallTool(ctx, "progress", map[string]any{"steps": 2, "intervalMs": 0}, mcpengine.WithProgress(func(messages.ProgressParams) {}))
	require.NoError(t, err)
	_, err = s.ListResources(ctx)
	require.NoError(t, err)
	_, err = s.ListResourceTemplates(ctx)
	require.NoError(t, err)
	_, err = s.ReadResource(ctx, "demo://resource/1")
	require.NoError(t, err)
	require.NoError(t, s.Subscribe(ctx, "demo://resource/1"))
	require.NoError(t, s.Unsubscribe(ctx, "demo://resource/1"))
	_, err = s.ListPrompts(ctx)
	require.NoError(t, err)
	_, err = s.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"})
	require.NoError(t, err)
	_, err = s.Complete(ctx, &messages.CompleteParams{
		Ref:      messages.CompleteReference{Type: messages.RefPrompt, Name: "greet"},
		Argument: messages.CompleteArgument{Name: "name", Value: "A"},
	})
	require.NoError(t, err)
	// 2026-07-28 has neither logging/setLevel nor ping.
	modern := messages.IsModernVersion(version)
	if !modern {
		require.NoError(t, s.SetLogLevel(ctx, messages.LoggingLevel("warning")))
		require.NoError(t, s.Ping(ctx))
	}
	_, err = s.CallTool(ctx, "sample", map[string]any{"prompt": "p"})
	require.NoError(t, err)
	_, err = s.CallTool(ctx, "roots", nil)
	require.NoError(t, err)
	if messages.VersionAtLeast(version, messages.Version20250618) {
		_, err = s.CallTool(ctx, "elicit", map[string]any{"message": "m"})
		require.NoError(t, err)
	}
	s.SetRoots([]messages.Root{{URI: "file:///elsewhere"}})
	_, err = s.CallTool(ctx, "sleep", map[string]any{"ms": 10000}, mcpengine.WithTimeout(10*time.Millisecond))
	require.ErrorIs(t, err, mcpengine.ErrTimeout)
	// After the cancelled notification and list_changed went out.
	if modern {
		_, err = s.ListTools(ctx)
		require.NoError(t, err)
	} else {
		require.NoError(t, s.Ping(ctx))
	}
}

// methodsByID maps the ids of server-initiated requests to their methods.
func methodsByID(t *testing.T, frames [][]byte) map[string]string {
	out := map[string]string{}
	for _, f := range frames {
		msgs, _ := messages.DecodeFrame(f)
		for _, m := range msgs {
			if m.Kind == messages.KindRequest {
				out[m.ID.String()] = m.Method
			}
		}
	}
	return out
}

// TestEveryFeatureOverARealSubprocess runs the same feature tour against the
// demo server as a separate process over stdio, for each protocol version.
func TestEveryFeatureOverARealSubprocess(t *testing.T) {
	for _, version := range []string{messages.Version20241105, messages.Version20251125} {
		t.Run(version, func(t *testing.T) {
			e := newEngine(t, mcpengine.Config{
				Roots: []messages.Root{{URI: "file:///work", Name: "work"}},
				Sampling: func(context.Context, *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
					return &messages.CreateMessageResult{Role: "assistant", Model: "m", Content: mustSampling(messages.TextContent("ok"))}, nil
				},
				Elicitation: func(context.Context, *messages.ElicitParams) (*messages.ElicitResult, error) {
					return &messages.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "ok": true}}, nil
				},
			})
			s, err := e.Connect(testCtx(t, 20*time.Second), mcpengine.SessionConfig{
				Name: "subprocess", Server: engineServe("--versions", version),
			})
			require.NoError(t, err)
			require.Equal(t, version, s.ProtocolVersion())
			exerciseEverything(t, s, version)
		})
	}
}
