package messages_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/internal/schemacheck"
	m "github.com/mcpengine/mcpengine/messages"
)

func modernMeta(t *testing.T) *m.RequestMeta {
	t.Helper()
	meta, err := m.NewRequestMeta(m.Version20260728, m.Implementation{Name: "mcpengine", Version: "0.1.0"},
		m.ClientCapabilities{Sampling: &m.SamplingCapability{}})
	require.NoError(t, err)
	return meta
}

// TestRequestsWithMetaValidateAgainst20260728 splices the per-request
// fields into every shape of params the engine writes and checks the
// frame against the 2026-07-28 schema, which requires _meta with the
// protocol version and the client capabilities on every request.
func TestRequestsWithMetaValidateAgainst20260728(t *testing.T) {
	meta := modernMeta(t)
	raw := func(v any) m.RawMessage {
		b, err := m.Marshal(v)
		require.NoError(t, err)
		return b
	}
	cases := []struct {
		name, method string
		params       m.RawMessage
		keep         []string // members of params that must survive
	}{
		{"discover, no params", m.MethodServerDiscover, nil, nil},
		{"list, empty object", m.MethodToolsList, m.RawMessage(`{}`), nil},
		{"list with cursor", m.MethodToolsList, raw(&m.ListToolsParams{Cursor: "c2"}), []string{"cursor"}},
		{"call", m.MethodToolsCall, raw(&m.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}), []string{"name", "arguments"}},
		{"call with progress token first", m.MethodToolsCall,
			m.WithMeta(raw(&m.CallToolParams{Name: "echo"}), m.MetaField{Key: m.MetaProgressToken, Value: m.RawMessage(`7`)}), []string{"name"}},
		{"call with _meta last", m.MethodToolsCall, m.RawMessage(`{"name":"echo","_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"}}`), []string{"name"}},
		{"call with empty _meta first", m.MethodToolsCall, m.RawMessage(`{"_meta":{},"name":"echo"}`), []string{"name"}},
		{"read", m.MethodResourcesRead, raw(&m.ReadResourceParams{URI: "file:///a"}), []string{"uri"}},
		{"prompt", m.MethodPromptsGet, raw(&m.GetPromptParams{Name: "p", Arguments: map[string]string{"a": "b"}}), []string{"name", "arguments"}},
		{"complete", m.MethodCompletionComplete, raw(&m.CompleteParams{Ref: m.CompleteReference{Type: m.RefPrompt, Name: "p"}, Argument: m.CompleteArgument{Name: "a", Value: "b"}}), []string{"ref", "argument"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			frame := m.AppendRequestWithMeta(nil, m.NumberID(3), c.method, c.params, meta)
			require.NoError(t, schemacheck.Validate(m.Version20260728, frame), "%s", frame)
			var got struct {
				Params map[string]m.RawMessage `json:"params"`
			}
			require.NoError(t, m.Unmarshal(frame, &got), "%s", frame)
			var gotMeta map[string]m.RawMessage
			require.NoError(t, m.Unmarshal(got.Params["_meta"], &gotMeta))
			assert.JSONEq(t, `"2026-07-28"`, string(gotMeta[m.MetaProtocolVersion]))
			assert.JSONEq(t, `{"name":"mcpengine","version":"0.1.0"}`, string(gotMeta[m.MetaClientInfo]))
			assert.JSONEq(t, `{"sampling":{}}`, string(gotMeta[m.MetaClientCapabilities]))
			for _, k := range c.keep {
				assert.Contains(t, got.Params, k)
			}
			var orig map[string]map[string]m.RawMessage
			if m.Unmarshal(c.params, &orig) == nil {
				for k, v := range orig["_meta"] {
					assert.Equal(t, string(v), string(gotMeta[k]), "the caller's _meta member %s", k)
				}
			}
		})
	}
}

func TestAppendRequestWithMetaAllocatesNothingOnTheCommonPaths(t *testing.T) {
	meta := modernMeta(t)
	buf := make([]byte, 0, 1024)
	params := m.RawMessage(`{"name":"echo","arguments":{"text":"hi"}}`)
	withToken := m.RawMessage(`{"_meta":{"progressToken":7},"name":"echo"}`)
	allocs := testing.AllocsPerRun(100, func() {
		buf = m.AppendRequestWithMeta(buf[:0], m.NumberID(9), m.MethodToolsCall, params, meta)
		buf = m.AppendRequestWithMeta(buf[:0], m.NumberID(9), m.MethodToolsCall, withToken, meta)
		buf = m.AppendRequestWithMeta(buf[:0], m.NumberID(9), m.MethodToolsList, nil, meta)
	})
	assert.Zero(t, allocs)
}

func TestAppendRequestWithoutMetaIsAppendRequest(t *testing.T) {
	p := m.RawMessage(`{"name":"x"}`)
	assert.Equal(t, string(m.AppendRequest(nil, m.NumberID(1), "tools/call", p)),
		string(m.AppendRequestWithMeta(nil, m.NumberID(1), "tools/call", p, nil)))
}

func TestModernErrorsAreTypedPermanentAndMatchedByCode(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "shared", "spec", "2026-07-28", "examples", "UnsupportedProtocolVersionError", "unsupported-version.json"))
	if err != nil {
		raw = []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25"],"requested":"1900-01-01"}}}`)
	}
	msgs, errs := m.DecodeFrame(raw)
	require.Empty(t, errs)
	require.Len(t, msgs, 1)
	require.NotNil(t, msgs[0].Error)

	typed := m.TypedError(msgs[0].Error)
	var uv *m.UnsupportedVersionError
	require.ErrorAs(t, typed, &uv)
	assert.Equal(t, []string{"2026-07-28", "2025-11-25"}, uv.Supported)
	assert.Equal(t, "1900-01-01", uv.Requested)
	assert.True(t, uv.Permanent())
	assert.ErrorIs(t, typed, m.ErrUnsupportedProtocolVersion)
	assert.NotErrorIs(t, typed, m.ErrMethodNotFound)
	got, ok := m.AsUnsupportedVersion(msgs[0].Error)
	require.True(t, ok)
	assert.Equal(t, uv.Supported, got.Supported)

	mc := m.TypedError(&m.WireError{Code: m.CodeMissingClientCapability, Message: "needs elicitation", Data: m.RawMessage(`{"requiredCapabilities":{"elicitation":{}}}`)})
	var mce *m.MissingCapabilityError
	require.ErrorAs(t, mc, &mce)
	assert.NotNil(t, mce.RequiredCapabilities.Elicitation)
	assert.True(t, mce.Permanent())
	assert.ErrorIs(t, mc, m.ErrMissingClientCapability)

	hm := m.TypedError(&m.WireError{Code: m.CodeHeaderMismatch, Message: "Mcp-Name mismatch"})
	var hme *m.HeaderMismatchError
	require.ErrorAs(t, hm, &hme)
	assert.ErrorIs(t, hm, m.ErrHeaderMismatch)

	other := &m.WireError{Code: m.CodeMethodNotFound, Message: "nope"}
	assert.Same(t, other, m.TypedError(other))
	_, ok = m.AsUnsupportedVersion(errors.New("plain"))
	assert.False(t, ok)
}

func TestVersionEras(t *testing.T) {
	assert.True(t, m.IsModernVersion(m.Version20260728))
	assert.True(t, m.IsModernVersion("2099-01-01"))
	assert.False(t, m.IsModernVersion(m.Version20251125))
	assert.False(t, m.IsModernVersion(""))
	assert.True(t, m.IsKnownVersion(m.Version20260728))
	assert.True(t, m.IsKnownVersion(m.Version20241105))
	assert.False(t, m.IsKnownVersion("2099-01-01"))
	assert.False(t, m.IsSupportedVersion(m.Version20260728), "initialize never offers a modern version")
	assert.Equal(t, []string{m.Version20260728, m.Version20251125, m.Version20250618, m.Version20250326, m.Version20241105}, m.KnownVersions)

	assert.Equal(t, m.Version20260728, m.NewestCommonVersion([]string{"2025-11-25", "2026-07-28", "2099-01-01"}, true))
	assert.Equal(t, m.Version20251125, m.NewestCommonVersion([]string{"2025-06-18", "2025-11-25", "2026-07-28"}, false))
	assert.Equal(t, "", m.NewestCommonVersion([]string{"2025-11-25"}, true))
	assert.Equal(t, "", m.NewestCommonVersion([]string{"1999-01-01", "2099-01-01"}, false))
}

func TestDiscoverResultRoundTripsAndValidates(t *testing.T) {
	r := m.DiscoverResult{
		ResultType:        m.ResultTypeComplete,
		SupportedVersions: []string{m.Version20260728},
		Capabilities:      m.ServerCapabilities{Tools: &m.ToolsCapability{}},
		TTLMs:             0,
		CacheScope:        m.CacheScopePublic,
		Meta:              &m.ResultMeta{ServerInfo: &m.Implementation{Name: "demo", Version: "1"}},
	}
	raw, err := m.Marshal(&r)
	require.NoError(t, err)
	require.NoError(t, schemacheck.ValidateResult(m.Version20260728, m.MethodServerDiscover, raw), "%s", raw)
	var back m.DiscoverResult
	require.NoError(t, m.Unmarshal(raw, &back))
	assert.Equal(t, "demo", back.ServerInfo().Name)
	assert.Equal(t, r.SupportedVersions, back.SupportedVersions)
}

func TestIsInputRequired(t *testing.T) {
	assert.True(t, m.IsInputRequired(m.RawMessage(`{"resultType":"input_required","requestState":"s"}`)))
	assert.False(t, m.IsInputRequired(m.RawMessage(`{"resultType":"complete","content":[{"type":"text","text":"input_required"}]}`)))
	assert.False(t, m.IsInputRequired(m.RawMessage(`{"content":[]}`)))
	assert.False(t, m.IsInputRequired(m.RawMessage(`{"structuredContent":{"is_required":true},"content":[]}`)), "another name ending the same way")
	assert.True(t, m.IsInputRequired(m.RawMessage(`{"inputRequests":{},"resultType" : "input_required"}`)), "spaces, resultType last")
}
