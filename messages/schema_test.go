package messages_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/internal/schemacheck"
	m "github.com/mcpengine/mcpengine/messages"
)

// clientCall is one request or notification the engine sends.
type clientCall struct {
	method string
	params any // nil = no params member
	notify bool
}

// clientCalls builds what the engine sends in version v, setting only what
// that version has (as the engine does); everything else is left zero.
func clientCalls(v string) []clientCall {
	caps := m.ClientCapabilities{Roots: &m.RootsCapability{ListChanged: true}, Sampling: &m.SamplingCapability{}}
	if m.VersionAtLeast(v, m.Version20250618) {
		caps.Elicitation = &m.ElicitationCapability{}
	}
	if m.VersionAtLeast(v, m.Version20251125) {
		caps.Sampling.Context = &m.SamplingContextCapability{}
		caps.Sampling.Tools = &m.SamplingToolsCapability{}
		caps.Elicitation.Form = &m.ElicitationFormCapability{}
		caps.Elicitation.URL = &m.ElicitationURLCapability{}
	}
	complete := &m.CompleteParams{
		Ref:      m.CompleteReference{Type: m.RefPrompt, Name: "code_review"},
		Argument: m.CompleteArgument{Name: "language", Value: "py"},
	}
	if m.VersionAtLeast(v, m.Version20250618) {
		complete.Context = &m.CompleteContext{Arguments: map[string]string{"framework": "flask"}}
	}
	progress := &m.ProgressParams{ProgressToken: m.StringID("tok"), Progress: 1, Total: ptr(4.0)}
	if m.VersionAtLeast(v, m.Version20250326) {
		progress.Message = "uploading"
	}
	return []clientCall{
		{method: m.MethodInitialize, params: &m.InitializeParams{
			ProtocolVersion: v, Capabilities: caps,
			ClientInfo: m.Implementation{Name: "mcpengine", Version: "0.1.0"},
		}},
		{method: m.NotificationInitialized, notify: true},
		{method: m.MethodPing},
		{method: m.MethodToolsList, params: &m.ListToolsParams{Cursor: "page-2"}},
		{method: m.MethodToolsList, params: &m.ListToolsParams{}},
		{method: m.MethodToolsCall, params: &m.CallToolParams{Name: "get_weather",
			Arguments: map[string]any{"city": "Paris"}, Meta: m.WithProgressToken(nil, m.NumberID(3))}},
		{method: m.MethodToolsCall, params: &m.CallToolParams{Name: "no_args"}},
		{method: m.MethodResourcesList, params: &m.ListResourcesParams{}},
		{method: m.MethodResourcesTemplatesList, params: &m.ListResourceTemplatesParams{Cursor: "c"}},
		{method: m.MethodResourcesRead, params: &m.ReadResourceParams{URI: "file:///project/README.md"}},
		{method: m.MethodResourcesSubscribe, params: &m.SubscribeParams{URI: "file:///project/README.md"}},
		{method: m.MethodResourcesUnsubscribe, params: &m.UnsubscribeParams{URI: "file:///project/README.md"}},
		{method: m.MethodPromptsList, params: &m.ListPromptsParams{}},
		{method: m.MethodPromptsGet, params: &m.GetPromptParams{Name: "code_review", Arguments: map[string]string{"code": "x"}}},
		{method: m.MethodCompletionComplete, params: complete},
		{method: m.MethodLoggingSetLevel, params: &m.SetLevelParams{Level: m.LoggingLevelWarning}},
		{method: m.NotificationCancelled, notify: true, params: &m.CancelledParams{RequestID: m.NumberID(12), Reason: "user abort"}},
		{method: m.NotificationCancelled, notify: true, params: &m.CancelledParams{RequestID: m.StringID("r-1")}},
		{method: m.NotificationProgress, notify: true, params: progress},
		{method: m.NotificationRootsListChanged, notify: true},
	}
}

// clientResult is one result the engine sends in answer to a server
// request.
type clientResult struct {
	method string
	result any
	since  string // first version with the method
}

func clientResults(v string) []clientResult {
	one, _ := m.EncodeSamplingContent(m.TextContent("4"))
	empty, _ := m.EncodeSamplingContent(m.TextContent(""))
	return []clientResult{
		{m.MethodPing, &m.EmptyResult{}, m.Version20241105},
		{m.MethodRootsList, &m.ListRootsResult{Roots: []m.Root{{URI: "file:///home/u/project", Name: "project"}, {URI: "file:///tmp"}}}, m.Version20241105},
		{m.MethodRootsList, &m.ListRootsResult{}, m.Version20241105},
		{m.MethodSamplingCreateMessage, &m.CreateMessageResult{Role: m.RoleAssistant, Content: one, Model: "claude-x", StopReason: "endTurn"}, m.Version20241105},
		{m.MethodSamplingCreateMessage, &m.CreateMessageResult{Role: m.RoleAssistant, Content: empty, Model: "m"}, m.Version20241105},
		{m.MethodElicitationCreate, &m.ElicitResult{Action: m.ElicitActionAccept, Content: map[string]any{"name": "Ada", "age": 36, "ok": true}}, m.Version20250618},
		{m.MethodElicitationCreate, &m.ElicitResult{Action: m.ElicitActionDecline}, m.Version20250618},
		{m.MethodElicitationCreate, &m.ElicitResult{Action: m.ElicitActionCancel}, m.Version20250618},
	}
}

func TestClientSentFramesValidateAgainstEverySchema(t *testing.T) {
	for _, v := range legacySchemaVersions() {
		for _, c := range clientCalls(v) {
			t.Run(v+"/"+c.method, func(t *testing.T) {
				var params m.RawMessage
				if c.params != nil {
					var err error
					params, err = m.Marshal(c.params)
					require.NoError(t, err)
				}
				var frame []byte
				if c.notify {
					frame = m.AppendNotification(nil, c.method, params)
				} else {
					frame = m.AppendRequest(nil, m.NumberID(1), c.method, params)
				}
				assert.NoError(t, schemacheck.Validate(v, frame), "%s", frame)
				assertNoNewerMembers(t, v, frame)
			})
		}
	}
}

func TestClientSentResultsValidateAgainstEverySchema(t *testing.T) {
	for _, v := range legacySchemaVersions() {
		for _, c := range clientResults(v) {
			if !m.VersionAtLeast(v, c.since) {
				continue
			}
			t.Run(v+"/"+c.method, func(t *testing.T) {
				result, err := m.Marshal(c.result)
				require.NoError(t, err)
				assert.NoError(t, schemacheck.ValidateResult(v, c.method, result), "%s", result)
				for _, id := range []m.ID{m.NumberID(5), m.StringID("s-5")} {
					frame := m.AppendResult(nil, id, result)
					assert.NoError(t, schemacheck.Validate(v, frame), "%s", frame)
				}
				assertNoNewerMembers(t, v, result)
			})
		}
	}
}

func TestElicitationDoesNotExistBefore20250618(t *testing.T) {
	for _, v := range []string{m.Version20241105, m.Version20250326} {
		assert.Error(t, schemacheck.ValidateResult(v, m.MethodElicitationCreate, []byte(`{"action":"accept"}`)))
	}
}

func TestSeveralSamplingBlocksAreValidOnlyIn20251125(t *testing.T) {
	var r m.CreateMessageResult
	r.Role, r.Model = m.RoleAssistant, "m"
	require.NoError(t, r.SetContent(m.TextContent("calling"),
		m.ContentBlock{Type: m.ContentTypeToolUse, ID: "call-1", Name: "calc", Input: m.RawMessage(`{"expr":"2+2"}`)}))
	result, err := m.Marshal(&r)
	require.NoError(t, err)
	for _, v := range legacySchemaVersions() {
		err := schemacheck.ValidateResult(v, m.MethodSamplingCreateMessage, result)
		if v == m.Version20251125 {
			assert.NoError(t, err)
		} else {
			assert.Error(t, err, v)
		}
	}
}

func TestErrorResponsesTheEngineSendsValidate(t *testing.T) {
	for _, v := range legacySchemaVersions() {
		for _, e := range []*m.WireError{
			{Code: m.CodeMethodNotFound, Message: "Method not found"},
			{Code: m.CodeInvalidParams, Message: "bad", Data: m.RawMessage(`{"field":"uri"}`)},
		} {
			frame := m.AppendError(nil, m.NumberID(9), e)
			assert.NoError(t, schemacheck.Validate(v, frame), "%s %s", v, frame)
		}
	}
}

// newerMembers lists member names that a version's schema does not have
// anywhere in what a client sends, because a later version added them.
var newerMembers = map[string][]string{
	m.Version20241105: {"elicitation", "context", "title", "structuredContent", "lastModified", "message",
		"icons", "websiteUrl", "description", "task", "tasks", "form", "url", "tools", "toolChoice"},
	m.Version20250326: {"elicitation", "context", "title", "structuredContent", "lastModified",
		"icons", "websiteUrl", "description", "task", "tasks", "form", "url", "tools", "toolChoice"},
	m.Version20250618: {"icons", "websiteUrl", "description", "task", "tasks", "form", "url", "tools", "toolChoice"},
	m.Version20251125: {},
}

func assertNoNewerMembers(t *testing.T, v string, frame []byte) {
	t.Helper()
	var doc any
	require.NoError(t, m.Unmarshal(frame, &doc))
	keys := map[string]bool{}
	collectKeys(doc, keys)
	for _, k := range newerMembers[v] {
		assert.False(t, keys[k], "%s: member %q is newer than the version: %s", v, k, frame)
	}
}

func collectKeys(v any, into map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			into[k] = true
			collectKeys(e, into)
		}
	case []any:
		for _, e := range x {
			collectKeys(e, into)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// legacySchemaVersions are the embedded schemas of the handshake era,
// whose frames these tests build; the 2026-07-28 frames are checked in
// modern_test.go.
func legacySchemaVersions() []string {
	var out []string
	for _, v := range schemacheck.Versions() {
		if !m.IsModernVersion(v) {
			out = append(out, v)
		}
	}
	return out
}
