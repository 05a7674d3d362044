package demoserver

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

// postModernRaw POSTs one request with the 2026-07-28 headers and returns
// the status and the decoded answer.
func postModernRaw(t *testing.T, hh *httpHarness, id int64, method, name string, params any) (int, messages.Message) {
	t.Helper()
	raw, err := messages.Marshal(params)
	require.NoError(t, err)
	h := http.Header{}
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Content-Type", "application/json")
	h.Set(HeaderProtocolVersion, messages.Version20260728)
	h.Set(HeaderMethod, method)
	if name != "" {
		h.Set(HeaderName, name)
	}
	resp := hh.do(http.MethodPost, PathStreamable, messages.AppendRequest(nil, messages.NumberID(id), method, raw), h)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	m, err := messages.DecodeMessage(b)
	require.NoError(t, err, "%s", b)
	return resp.StatusCode, m
}

// A 2026-07-28 request without _meta is refused with its id and -32602
// (before: 400 "missing Mcp-Session-Id header" with a null id, which made
// the official Go SDK client drop its whole session).
func TestModernHTTPRequestWithoutMetaKeepsItsID(t *testing.T) {
	hh := startHTTP(t, Options{Versions: messages.KnownVersions}, HTTPOptions{AnswerMode: AnswerJSON})
	for name, params := range map[string]any{
		"no params":    nil,
		"no _meta":     map[string]any{},
		"_meta empty":  map[string]any{"_meta": map[string]any{}},
		"no version":   map[string]any{"_meta": map[string]any{messages.MetaClientCapabilities: map[string]any{}}},
		"no caps":      map[string]any{"_meta": map[string]any{messages.MetaProtocolVersion: messages.Version20260728}},
		"_meta string": map[string]any{"_meta": "x"},
	} {
		status, m := postModernRaw(t, hh, 5, messages.MethodToolsList, "", params)
		assert.Equal(t, http.StatusBadRequest, status, name)
		require.NotNil(t, m.Error, name)
		assert.Equal(t, int64(messages.CodeInvalidParams), m.Error.Code, name)
		assert.Equal(t, "5", m.ID.String(), name)
	}
	assert.Empty(t, hh.h.Streamable.SessionIDs())
}

// Methods 2026-07-28 removed, and unknown ones, get HTTP 404 with -32601
// (before: 200).
func TestModernHTTPMethodNotFoundIs404(t *testing.T) {
	hh := startHTTP(t, Options{Versions: messages.KnownVersions}, HTTPOptions{AnswerMode: AnswerJSON})
	for _, method := range []string{
		messages.MethodInitialize, messages.MethodPing, messages.MethodLoggingSetLevel,
		messages.MethodResourcesSubscribe, messages.MethodResourcesUnsubscribe, "no/such-method",
	} {
		status, m := postModernRaw(t, hh, 9, method, "", modernParams(messages.Version20260728, map[string]any{"uri": "demo://resource/1", "level": "info"}))
		assert.Equal(t, http.StatusNotFound, status, method)
		require.NotNil(t, m.Error, method)
		assert.Equal(t, int64(messages.CodeMethodNotFound), m.Error.Code, method)
		assert.Equal(t, "9", m.ID.String(), method)
	}
}

// A missing resource is -32602 with data.uri in 2026-07-28 (before:
// -32002), and still -32002 in the handshake era.
func TestModernHTTPMissingResourceIsInvalidParams(t *testing.T) {
	hh := startHTTP(t, Options{Versions: messages.KnownVersions}, HTTPOptions{AnswerMode: AnswerJSON})
	const uri = "demo://no/such"
	status, m := postModernRaw(t, hh, 3, messages.MethodResourcesRead, uri, modernParams(messages.Version20260728, map[string]any{"uri": uri}))
	assert.Equal(t, http.StatusOK, status)
	require.NotNil(t, m.Error)
	assert.Equal(t, int64(messages.CodeInvalidParams), m.Error.Code)
	assert.JSONEq(t, `{"uri":"`+uri+`"}`, string(m.Error.Data))

	c := hh.client()
	c.initialize(messages.Version20251125)
	m = c.call(messages.MethodResourcesRead, map[string]any{"uri": uri})
	require.NotNil(t, m.Error)
	assert.Equal(t, int64(messages.CodeResourceNotFound), m.Error.Code)
	assert.JSONEq(t, `{"uri":"`+uri+`"}`, string(m.Error.Data))
}
