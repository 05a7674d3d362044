package demoserver

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

// askParams are the params of a 2026-07-28 tools/call with the given
// client capabilities and retry members (nil: left out).
func askParams(tool string, args map[string]any, caps map[string]any, responses map[string]any, state *string) map[string]any {
	p := modernParams(messages.Version20260728, map[string]any{"name": tool, "arguments": args})
	p["_meta"].(map[string]any)[messages.MetaClientCapabilities] = caps
	if responses != nil {
		p["inputResponses"] = responses
	}
	if state != nil {
		p["requestState"] = *state
	}
	return p
}

func inputRequired(t *testing.T, m messages.Message) messages.InputRequiredResult {
	t.Helper()
	require.Nil(t, m.Error)
	require.True(t, messages.IsInputRequired(m.Result), "%s", m.Result)
	var ir messages.InputRequiredResult
	require.NoError(t, messages.Unmarshal(m.Result, &ir))
	require.NotEmpty(t, ir.RequestState)
	return ir
}

// TestClientToolsAskThroughInputRequiredInTheStatelessEra: each
// client-feature tool answers input_required with its input request and
// completes with the answer in inputResponses; rounds asks more than once;
// a missing, forged or foreign requestState is refused with -32602, a
// missing capability with -32021; no server→client request is sent.
func TestClientToolsAskThroughInputRequiredInTheStatelessEra(t *testing.T) {
	srv := New(Options{Versions: messages.KnownVersions})
	conn, _ := serve(t, srv)
	c := newClient(t, conn, nil)
	all := map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{}, "roots": map[string]any{}}

	cases := []struct {
		tool, method string
		args         map[string]any
		answer       map[string]any
		want         string
	}{
		{"sample", messages.MethodSamplingCreateMessage, map[string]any{"prompt": "p"},
			map[string]any{"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "sampled"}}, "sampled"},
		{"elicit", messages.MethodElicitationCreate, map[string]any{"message": "who?"},
			map[string]any{"action": "decline"}, "action=decline"},
		{"roots", messages.MethodRootsList, map[string]any{},
			map[string]any{"roots": []any{map[string]any{"uri": "file:///r"}}}, "file:///r"},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			ir := inputRequired(t, c.call(messages.MethodToolsCall, askParams(tc.tool, tc.args, all, nil, nil)))
			require.Len(t, ir.InputRequests, 1)
			var key string
			for k, req := range ir.InputRequests {
				key = k
				assert.Equal(t, tc.method, req.Method)
			}
			m := c.call(messages.MethodToolsCall, askParams(tc.tool, tc.args, all, map[string]any{key: tc.answer}, &ir.RequestState))
			require.Nil(t, m.Error)
			assert.Contains(t, string(m.Result), `"resultType":"complete"`)
			assert.Contains(t, string(m.Result), tc.want)

			// A retry without the answer is asked again.
			again := inputRequired(t, c.call(messages.MethodToolsCall, askParams(tc.tool, tc.args, all, map[string]any{}, &ir.RequestState)))
			assert.Contains(t, again.InputRequests, key)

			// Without the capability: -32021 naming it.
			werr := c.callErr(messages.MethodToolsCall, askParams(tc.tool, tc.args, map[string]any{}, nil, nil))
			assert.Equal(t, int64(messages.CodeMissingClientCapability), werr.Code)
		})
	}

	args := map[string]any{"prompt": "p"}
	ir := inputRequired(t, c.call(messages.MethodToolsCall, askParams("sample", args, all, nil, nil)))
	answer := map[string]any{"sample-1": map[string]any{"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "x"}}}
	forged := ir.RequestState[:len(ir.RequestState)-2] + "AA"
	if forged == ir.RequestState {
		forged = ir.RequestState[:len(ir.RequestState)-2] + "BB"
	}
	for name, params := range map[string]map[string]any{
		"missing":       askParams("sample", args, all, answer, nil),
		"forged":        askParams("sample", args, all, answer, &forged),
		"other payload": askParams("sample", args, all, answer, ptr(strings.Replace(ir.RequestState, ".", "x.", 1))),
		"other request": askParams("sample", map[string]any{"prompt": "q"}, all, answer, &ir.RequestState),
	} {
		werr := c.callErr(messages.MethodToolsCall, params)
		assert.Equal(t, int64(messages.CodeInvalidParams), werr.Code, name)
	}

	// rounds: 3 asks three times, then completes with the last answer.
	args = map[string]any{"prompt": "p", "rounds": 3}
	ir = inputRequired(t, c.call(messages.MethodToolsCall, askParams("sample", args, all, nil, nil)))
	for round := 1; round <= 3; round++ {
		key := "sample-" + string(rune('0'+round))
		require.Contains(t, ir.InputRequests, key)
		answer := map[string]any{key: map[string]any{"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "r" + key}}}
		m := c.call(messages.MethodToolsCall, askParams("sample", args, all, answer, &ir.RequestState))
		if round < 3 {
			ir = inputRequired(t, m)
			continue
		}
		require.Nil(t, m.Error)
		assert.Contains(t, string(m.Result), "rsample-3")
	}
	assert.Zero(t, srv.Stats().ServerRequests, "no server→client request in the stateless era")
}

func ptr[T any](v T) *T { return &v }
