package actors

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/supervisor"
	"github.com/mcpengine/mcpengine/transport"
)

func discoverResult(versions ...string) messages.RawMessage {
	raw, _ := messages.Marshal(&messages.DiscoverResult{ResultType: "complete", SupportedVersions: versions,
		Capabilities: messages.ServerCapabilities{Tools: &messages.ToolsCapability{}},
		Meta:         &messages.ResultMeta{ServerInfo: &messages.Implementation{Name: "srv", Version: "1"}}})
	return raw
}

func initResult(version string) messages.RawMessage {
	return messages.RawMessage(`{"protocolVersion":"` + version + `","capabilities":{},"serverInfo":{"name":"old","version":"1"}}`)
}

func unsupported(supported ...string) error {
	data, _ := messages.Marshal(&messages.UnsupportedVersionData{Supported: supported, Requested: "x"})
	return messages.TypedError(&messages.WireError{Code: messages.CodeUnsupportedProtocolVersion, Message: "unsupported", Data: data})
}

func requestFailed(status int) error {
	data, _ := messages.Marshal(transport.RequestFailure{Status: status, Reason: "HTTP"})
	return &messages.WireError{Code: transport.CodeRequestFailed, Message: "request failed", Data: data}
}

func offered(t *testing.T, st handshakeStep) string {
	t.Helper()
	require.NoError(t, st.err)
	require.Nil(t, st.done)
	if st.method == messages.MethodServerDiscover {
		require.NotNil(t, st.meta)
		return "discover " + st.meta.ProtocolVersion
	}
	require.Equal(t, messages.MethodInitialize, st.method)
	return "initialize " + st.params.(*messages.InitializeParams).ProtocolVersion
}

func TestEraHandshakeProbesThenSettlesOnTheServersEra(t *testing.T) {
	notModern := []struct {
		name string
		err  error
	}{
		{"method not found", messages.ErrMethodNotFound},
		{"invalid params", &messages.WireError{Code: messages.CodeInvalidParams, Message: "no such thing before initialize"}},
		{"HTTP 400 without a modern error", requestFailed(400)},
		{"HTTP 404", requestFailed(404)},
		{"no answer in time", &mcperr.TimeoutError{Method: messages.MethodServerDiscover, After: time.Second}},
	}
	for _, c := range notModern {
		t.Run("legacy: "+c.name, func(t *testing.T) {
			cache := NewEraCache()
			h := (&EraHandshake{Cache: cache, Key: "srv", ProbeTimeout: 7 * time.Second}).newRun().(*eraRun)
			st := h.begin(messages.ClientCapabilities{})
			assert.Equal(t, "discover 2026-07-28", offered(t, st))
			assert.Equal(t, 7*time.Second, st.timeout, "the probe has its own, shorter, timeout")
			assert.Equal(t, "initialize 2025-11-25", offered(t, h.step(nil, c.err)))
			st = h.step(initResult(messages.Version20251125), nil)
			require.NotNil(t, st.done)
			assert.False(t, st.done.Modern())
			m, ok := h.completed()
			assert.True(t, ok)
			assert.Equal(t, messages.NotificationInitialized, m)
			assert.Equal(t, messages.Version20251125, cache.get("srv"))

			// The next handshake with the same server skips the probe.
			h2 := (&EraHandshake{Cache: cache, Key: "srv"}).newRun().(*eraRun)
			assert.Equal(t, "initialize 2025-11-25", offered(t, h2.begin(messages.ClientCapabilities{})))
		})
	}
	t.Run("modern", func(t *testing.T) {
		cache := NewEraCache()
		h := (&EraHandshake{Cache: cache, Key: "srv", ClientInfo: messages.Implementation{Name: "c", Version: "2"}}).newRun().(*eraRun)
		offered(t, h.begin(messages.ClientCapabilities{Sampling: &messages.SamplingCapability{},
			Roots: &messages.RootsCapability{ListChanged: true}, Tasks: &messages.TasksCapability{}}))
		st := h.step(discoverResult(messages.Version20260728, messages.Version20251125), nil)
		require.NoError(t, st.err)
		require.NotNil(t, st.done)
		assert.True(t, st.done.Modern())
		assert.Equal(t, messages.Version20260728, st.done.ProtocolVersion)
		assert.Equal(t, "srv", st.done.ServerInfo.Name)
		assert.NotNil(t, st.done.Capabilities.Tools)
		assert.Contains(t, string(st.done.requestMeta.Members()), `"io.modelcontextprotocol/clientCapabilities":{"roots":{},"sampling":{}}`,
			"the handlers installed, as initialize declares them; no listChanged (no client notifications) and no tasks in this era")
		_, ok := h.completed()
		assert.False(t, ok, "no notifications/initialized")
		assert.Equal(t, messages.Version20260728, cache.get("srv"))
	})
}

func TestEraHandshakeFollowsUnsupportedVersionErrors(t *testing.T) {
	t.Run("discover refused, only legacy listed: initialize in it", func(t *testing.T) {
		h := (&EraHandshake{}).newRun().(*eraRun)
		offered(t, h.begin(messages.ClientCapabilities{}))
		assert.Equal(t, "initialize 2025-06-18", offered(t, h.step(nil, unsupported("2025-06-18", "1999-01-01"))))
		st := h.step(initResult(messages.Version20250618), nil)
		require.NotNil(t, st.done)
		assert.Equal(t, messages.Version20250618, st.done.ProtocolVersion)
	})
	t.Run("initialize refused by a modern server: discover", func(t *testing.T) {
		cache := NewEraCache()
		cache.put("srv", messages.Version20251125) // stale: the server was upgraded
		h := (&EraHandshake{Cache: cache, Key: "srv"}).newRun().(*eraRun)
		assert.Equal(t, "initialize 2025-11-25", offered(t, h.begin(messages.ClientCapabilities{})))
		assert.Equal(t, "discover 2026-07-28", offered(t, h.step(nil, unsupported("2026-07-28"))))
		assert.Empty(t, cache.get("srv"), "the stale entry is dropped")
		st := h.step(discoverResult(messages.Version20260728), nil)
		require.NotNil(t, st.done)
		assert.Equal(t, messages.Version20260728, cache.get("srv"))
	})
	t.Run("initialize refused, an older legacy version listed", func(t *testing.T) {
		h := (&EraHandshake{Pin: ""}).newRun().(*eraRun)
		offered(t, h.begin(messages.ClientCapabilities{}))
		offered(t, h.step(nil, messages.ErrMethodNotFound))
		assert.Equal(t, "initialize 2024-11-05", offered(t, h.step(nil, unsupported("2024-11-05"))))
	})
	t.Run("nothing in common: permanent", func(t *testing.T) {
		h := (&EraHandshake{}).newRun().(*eraRun)
		offered(t, h.begin(messages.ClientCapabilities{}))
		st := h.step(nil, unsupported("2099-01-01"))
		var nc *mcperr.NoCommonVersionError
		require.ErrorAs(t, st.err, &nc)
		assert.Equal(t, []string{"2099-01-01"}, nc.Supported)
		assert.Equal(t, supervisor.Permanent, supervisor.Classify(st.err))
		assert.ErrorIs(t, st.err, mcperr.ErrVersionMismatch)
		assert.ErrorIs(t, st.err, messages.ErrUnsupportedProtocolVersion)
	})
	t.Run("the version asked for is listed: sent again once, then permanent, no loop", func(t *testing.T) {
		// The server wants the request again (the suite's request-metadata
		// scenario): before, this ended the connection with "asked for
		// 2026-07-28, the server supports 2026-07-28".
		h := (&EraHandshake{}).newRun().(*eraRun)
		offered(t, h.begin(messages.ClientCapabilities{}))
		assert.Equal(t, "discover 2026-07-28", offered(t, h.step(nil, unsupported("2026-07-28"))))
		st := h.step(nil, unsupported("2026-07-28"))
		var nc *mcperr.NoCommonVersionError
		require.ErrorAs(t, st.err, &nc)
		assert.Equal(t, supervisor.Permanent, supervisor.Classify(st.err))
	})
	t.Run("the version asked for is listed: the retry can settle", func(t *testing.T) {
		for _, pin := range []string{"", messages.Version20260728} {
			h := (&EraHandshake{Pin: pin}).newRun().(*eraRun)
			offered(t, h.begin(messages.ClientCapabilities{}))
			assert.Equal(t, "discover 2026-07-28", offered(t, h.step(nil, unsupported("2026-07-28"))), "pin %q", pin)
			st := h.step(discoverResult(messages.Version20260728), nil)
			require.NoError(t, st.err)
			require.NotNil(t, st.done)
			assert.Equal(t, messages.Version20260728, st.done.ProtocolVersion)
		}
	})
	t.Run("an initialize refused with its own version listed is sent again once", func(t *testing.T) {
		h := (&EraHandshake{Pin: messages.Version20251125}).newRun().(*eraRun)
		assert.Equal(t, "initialize 2025-11-25", offered(t, h.begin(messages.ClientCapabilities{})))
		assert.Equal(t, "initialize 2025-11-25", offered(t, h.step(nil, unsupported("2025-11-25"))))
		require.Error(t, h.step(nil, unsupported("2025-11-25")).err)
	})
}

func TestEraHandshakePinsAndModernRefusals(t *testing.T) {
	t.Run("pinned modern never falls back", func(t *testing.T) {
		h := (&EraHandshake{Pin: messages.Version20260728}).newRun().(*eraRun)
		st := h.begin(messages.ClientCapabilities{})
		assert.Equal(t, "discover 2026-07-28", offered(t, st))
		assert.Zero(t, st.timeout, "a pinned era is not a probe")
		st = h.step(nil, messages.ErrMethodNotFound)
		var nm *mcperr.NotModernError
		require.ErrorAs(t, st.err, &nm)
		assert.Equal(t, supervisor.Permanent, supervisor.Classify(st.err))
	})
	t.Run("pinned legacy is offered at once and kept", func(t *testing.T) {
		h := (&EraHandshake{Pin: messages.Version20250326, Strict: true}).newRun().(*eraRun)
		assert.Equal(t, "initialize 2025-03-26", offered(t, h.begin(messages.ClientCapabilities{})))
		st := h.step(initResult(messages.Version20251125), nil)
		require.ErrorIs(t, st.err, mcperr.ErrVersionMismatch)
		st = h.step(nil, unsupported("2026-07-28"))
		require.Error(t, st.err, "a pin does not move")
	})
	t.Run("missing client capability on discover is permanent", func(t *testing.T) {
		h := (&EraHandshake{}).newRun().(*eraRun)
		offered(t, h.begin(messages.ClientCapabilities{}))
		st := h.step(nil, messages.TypedError(&messages.WireError{Code: messages.CodeMissingClientCapability, Message: "m",
			Data: messages.RawMessage(`{"requiredCapabilities":{"roots":{}}}`)}))
		var mc *messages.MissingCapabilityError
		require.ErrorAs(t, st.err, &mc)
		assert.Equal(t, supervisor.Permanent, supervisor.Classify(st.err))
	})
	t.Run("a discover answer without versions is a legacy server's", func(t *testing.T) {
		h := (&EraHandshake{}).newRun().(*eraRun)
		offered(t, h.begin(messages.ClientCapabilities{}))
		assert.Equal(t, "initialize 2025-11-25", offered(t, h.step(initResult(messages.Version20251125), nil)))
	})
	t.Run("bounded", func(t *testing.T) {
		h := (&EraHandshake{}).newRun().(*eraRun)
		offered(t, h.begin(messages.ClientCapabilities{}))
		var st handshakeStep
		for i := 0; i < 10; i++ {
			// A server that alternates its story forever.
			if i%2 == 0 {
				st = h.step(nil, unsupported("2024-11-05"))
			} else {
				st = h.step(nil, unsupported("2026-07-28"))
			}
			if st.err != nil {
				break
			}
		}
		require.Error(t, st.err)
	})
}
