package demoserver

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

// modernParams are params carrying the 2026-07-28 per-request fields.
func modernParams(version string, extra map[string]any) map[string]any {
	p := map[string]any{"_meta": map[string]any{
		messages.MetaProtocolVersion:    version,
		messages.MetaClientCapabilities: map[string]any{},
		messages.MetaClientInfo:         map[string]any{"name": "t", "version": "1"},
	}}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

func TestModernRequestsAreServedWithoutInitialize(t *testing.T) {
	srv := New(Options{}) // the zero value serves both eras
	conn, _ := serve(t, srv)
	c := newClient(t, conn, nil)

	var d messages.DiscoverResult
	c.result(messages.MethodServerDiscover, modernParams(messages.Version20260728, nil), &d)
	assert.Equal(t, messages.KnownVersions, d.SupportedVersions)
	assert.Equal(t, "demoserver", d.ServerInfo().Name)
	assert.Nil(t, d.Capabilities.Logging, "no setLevel in the stateless era")

	m := c.call(messages.MethodToolsCall, modernParams(messages.Version20260728, map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}))
	require.Nil(t, m.Error)
	assert.Contains(t, string(m.Result), `"resultType":"complete"`)
	assert.Contains(t, string(m.Result), `"hi"`)

	// The legacy era goes on beside it on the same connection.
	werr := c.callErr(messages.MethodToolsList, nil)
	assert.Equal(t, int64(messages.CodeInvalidRequest), werr.Code, "legacy requests still need initialize")
	// The stateless era has no ping, and discover needs its _meta.
	assert.Equal(t, int64(messages.CodeMethodNotFound), c.callErr(messages.MethodPing, modernParams(messages.Version20260728, nil)).Code)
	assert.Equal(t, int64(messages.CodeInvalidParams), c.callErr(messages.MethodServerDiscover, nil).Code)
	// A modern request without its capabilities is malformed.
	bad := modernParams(messages.Version20260728, nil)
	delete(bad["_meta"].(map[string]any), messages.MetaClientCapabilities)
	assert.Equal(t, int64(messages.CodeInvalidParams), c.callErr(messages.MethodToolsList, bad).Code)
}

func TestUnsupportedVersionsAreRefusedWithTheSupportedList(t *testing.T) {
	srv := New(Options{Versions: messages.ModernVersions})
	conn, _ := serve(t, srv)
	c := newClient(t, conn, nil)

	werr := c.callErr(messages.MethodToolsList, modernParams("2099-01-01", nil))
	require.Equal(t, int64(messages.CodeUnsupportedProtocolVersion), werr.Code)
	var data messages.UnsupportedVersionData
	require.NoError(t, messages.Unmarshal(werr.Data, &data))
	assert.Equal(t, "2099-01-01", data.Requested)
	assert.Equal(t, messages.ModernVersions, data.Supported)

	// A server of the stateless era only names its versions to initialize.
	werr = c.callErr(messages.MethodInitialize, &messages.InitializeParams{ProtocolVersion: messages.LatestVersion})
	require.Equal(t, int64(messages.CodeUnsupportedProtocolVersion), werr.Code)
	require.NoError(t, messages.Unmarshal(werr.Data, &data))
	assert.Equal(t, messages.LatestVersion, data.Requested)
}

func TestLegacyOnlyServersDoNotKnowDiscover(t *testing.T) {
	conn, _ := serve(t, New(Options{Versions: messages.LegacyVersions}))
	c := newClient(t, conn, nil)
	assert.Equal(t, int64(messages.CodeMethodNotFound), c.callErr(messages.MethodServerDiscover, modernParams(messages.Version20260728, nil)).Code)

	conn2, _ := serve(t, New(Options{Versions: []string{messages.Version20250618}, RefuseInitialize: true}))
	c2 := newClient(t, conn2, nil)
	werr := c2.callErr(messages.MethodInitialize, &messages.InitializeParams{ProtocolVersion: messages.LatestVersion})
	assert.Equal(t, int64(messages.CodeUnsupportedProtocolVersion), werr.Code)
	var res messages.InitializeResult
	c2.result(messages.MethodInitialize, &messages.InitializeParams{ProtocolVersion: messages.Version20250618}, &res)
	assert.Equal(t, messages.Version20250618, res.ProtocolVersion)
}

func TestModernHTTPChecksTheMirroredHeaders(t *testing.T) {
	hh := startHTTP(t, Options{Versions: messages.KnownVersions}, HTTPOptions{AnswerMode: AnswerJSON})
	call := func(version, method, name string, params map[string]any, header map[string]string) (*http.Response, messages.Message) {
		p := modernParams(version, params)
		raw, err := messages.Marshal(p)
		require.NoError(t, err)
		body := messages.AppendRequest(nil, messages.NumberID(7), method, raw)
		h := http.Header{}
		h.Set("Accept", "application/json, text/event-stream")
		h.Set("Content-Type", "application/json")
		h.Set(HeaderProtocolVersion, version)
		h.Set(HeaderMethod, method)
		if name != "" {
			h.Set(HeaderName, name)
		}
		for k, v := range header {
			h.Set(k, v)
		}
		resp := hh.do(http.MethodPost, PathStreamable, body, h)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		m, err := messages.DecodeMessage(b)
		require.NoError(t, err, "%s", b)
		return resp, m
	}
	echo := map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}}

	resp, m := call(messages.Version20260728, messages.MethodToolsCall, "echo", echo, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Nil(t, m.Error)
	assert.Empty(t, resp.Header.Get(HeaderSessionID), "no session in the stateless era")

	resp, m = call(messages.Version20260728, messages.MethodToolsCall, "=?base64?ZWNobw==?=", echo, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "a Base64-sentinel name is decoded")
	require.Nil(t, m.Error)

	for name, c := range map[string]struct {
		method, mcpName string
		header          map[string]string
	}{
		"name mismatch":    {messages.MethodToolsCall, "other", nil},
		"name missing":     {messages.MethodToolsCall, "", nil},
		"method mismatch":  {messages.MethodToolsCall, "echo", map[string]string{HeaderMethod: "tools/list"}},
		"version mismatch": {messages.MethodToolsCall, "echo", map[string]string{HeaderProtocolVersion: messages.Version20251125}},
	} {
		resp, m = call(messages.Version20260728, c.method, c.mcpName, echo, c.header)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, name)
		require.NotNil(t, m.Error, name)
		assert.Equal(t, int64(messages.CodeHeaderMismatch), m.Error.Code, name)
		assert.Equal(t, "7", m.ID.String(), name)
	}

	resp, m = call("2099-01-01", messages.MethodToolsList, "", nil, nil)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.NotNil(t, m.Error)
	assert.Equal(t, int64(messages.CodeUnsupportedProtocolVersion), m.Error.Code)
	assert.Empty(t, hh.h.Streamable.SessionIDs(), "every stateless request's session ended with it")
}
