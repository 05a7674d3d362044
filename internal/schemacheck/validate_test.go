package schemacheck

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allVersions are the legacy versions, whose every method has an example
// in examples_test.go; 2026-07-28 is checked by the tests of the engine's
// modern era against the official examples instead.
var allVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

func TestVersionsListsBothErasOldestFirst(t *testing.T) {
	assert.Equal(t, append(append([]string{}, allVersions...), "2026-07-28"), Versions())
}

func TestEveryMethodOfEveryVersionHasAnExample(t *testing.T) {
	for _, v := range allVersions {
		methods, err := Methods(v)
		require.NoError(t, err)
		for _, m := range methods {
			_, ok := examples[m]
			assert.True(t, ok, "%s: no example for %s", v, m)
		}
	}
}

func TestValidFrameOfEachMethodValidatesWhereTheMethodExists(t *testing.T) {
	for _, v := range allVersions {
		methods, err := Methods(v)
		require.NoError(t, err)
		for _, m := range methods {
			ex := examples[m]
			t.Run(v+"/"+m, func(t *testing.T) {
				assert.NoError(t, Validate(v, frame(m, ex)))
				if !ex.notification {
					assert.NoError(t, ValidateResult(v, m, []byte(ex.result)))
					resp := `{"jsonrpc":"2.0","id":1,"result":` + ex.result + `}`
					assert.NoError(t, Validate(v, []byte(resp)))
				}
			})
		}
	}
}

func TestMethodMissingFromAVersionIsAnError(t *testing.T) {
	cases := []struct{ version, method string }{
		{"2024-11-05", "elicitation/create"},
		{"2025-03-26", "elicitation/create"},
		{"2025-06-18", "notifications/elicitation/complete"},
		{"2025-06-18", "tasks/get"},
		{"2025-11-25", "tools/execute"},
	}
	for _, c := range cases {
		ex, ok := examples[c.method]
		if !ok {
			ex = example{params: `{}`}
		}
		err := Validate(c.version, frame(c.method, ex))
		require.Error(t, err, "%s %s", c.version, c.method)
		assert.Contains(t, err.Error(), "method "+c.method+" does not exist in protocol version "+c.version)
		if !ex.notification {
			assert.Error(t, ValidateResult(c.version, c.method, []byte(`{}`)))
		}
	}
}

func TestDefinitionNamesFollowTheSchema(t *testing.T) {
	cases := []struct{ version, method, call, result string }{
		{"2024-11-05", "initialize", "InitializeRequest", "InitializeResult"},
		{"2024-11-05", "tools/call", "CallToolRequest", "CallToolResult"},
		{"2024-11-05", "ping", "PingRequest", "EmptyResult"},
		{"2024-11-05", "logging/setLevel", "SetLevelRequest", "EmptyResult"},
		{"2024-11-05", "roots/list", "ListRootsRequest", "ListRootsResult"},
		{"2024-11-05", "sampling/createMessage", "CreateMessageRequest", "CreateMessageResult"},
		{"2025-06-18", "elicitation/create", "ElicitRequest", "ElicitResult"},
		{"2025-11-25", "resources/subscribe", "SubscribeRequest", "EmptyResult"},
		{"2025-11-25", "notifications/initialized", "InitializedNotification", ""},
		{"2025-11-25", "notifications/elicitation/complete", "ElicitationCompleteNotification", ""},
	}
	for _, c := range cases {
		call, result, err := Definitions(c.version, c.method)
		require.NoError(t, err)
		assert.Equal(t, c.call, call, c.method)
		assert.Equal(t, c.result, result, c.method)
	}
}

func TestInvalidFramesFail(t *testing.T) {
	cases := []struct{ name, frame string }{
		{"tools/call without name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}`},
		{"tools/call name not a string", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`},
		{"initialize without clientInfo", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"x","capabilities":{}}}`},
		{"initialize without params", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`},
		{"resources/read uri not a string", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":1}}`},
		{"setLevel unknown level", `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"verbose"}}`},
		{"progress without token", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`},
		{"cancelled requestId is an object", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}`},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"ping"}`},
		{"jsonrpc missing", `{"id":1,"method":"ping"}`},
		{"id is an object", `{"jsonrpc":"2.0","id":{},"method":"ping"}`},
		{"method is a number", `{"jsonrpc":"2.0","id":1,"method":1}`},
		{"notification sent as a request", `{"jsonrpc":"2.0","id":1,"method":"notifications/initialized"}`},
		{"request sent as a notification", `{"jsonrpc":"2.0","method":"tools/list"}`},
		{"error code not an integer", `{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}`},
		{"error without message", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601}}`},
		{"result not an object", `{"jsonrpc":"2.0","id":1,"result":[]}`},
		{"not JSON", `{"jsonrpc":`},
		{"not an object", `"ping"`},
	}
	for _, v := range allVersions {
		for _, c := range cases {
			t.Run(v+"/"+c.name, func(t *testing.T) {
				assert.Error(t, Validate(v, []byte(c.frame)))
			})
		}
	}
}

func TestInvalidResultsFail(t *testing.T) {
	cases := []struct{ method, result string }{
		{"tools/call", `{"isError":true}`},
		{"tools/call", `{"content":[{"type":"text"}]}`},
		{"tools/list", `{"tools":[{"name":"x"}]}`},
		{"roots/list", `{}`},
		{"roots/list", `{"roots":[{"name":"no uri"}]}`},
		{"sampling/createMessage", `{"role":"assistant","content":{"type":"text","text":"4"}}`},
		{"sampling/createMessage", `{"role":"robot","content":{"type":"text","text":"4"},"model":"m"}`},
		{"initialize", `{"protocolVersion":"x","capabilities":{}}`},
		{"completion/complete", `{"completion":{}}`},
		{"ping", `[]`},
	}
	for _, v := range allVersions {
		for _, c := range cases {
			assert.Error(t, ValidateResult(v, c.method, []byte(c.result)), "%s %s %s", v, c.method, c.result)
		}
	}
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		assert.Error(t, ValidateResult(v, "elicitation/create", []byte(`{"action":"maybe"}`)))
		assert.Error(t, ValidateResult(v, "elicitation/create", []byte(`{}`)))
	}
}

func TestErrorResponsesValidate(t *testing.T) {
	for _, v := range allVersions {
		assert.NoError(t, Validate(v, []byte(`{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"nope","data":{"m":"x"}}}`)), v)
	}
	// 2025-11-25 made the id optional on error responses.
	assert.NoError(t, Validate("2025-11-25", []byte(`{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}`)))
	assert.Error(t, Validate("2024-11-05", []byte(`{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}`)))
}

func TestBatchesOnlyExistIn20250326(t *testing.T) {
	batch := []byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`)
	assert.NoError(t, Validate("2025-03-26", batch))
	assert.Error(t, Validate("2025-03-26", []byte(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}]`)))
	assert.Error(t, Validate("2025-03-26", []byte(`[]`)))
	for _, v := range []string{"2024-11-05", "2025-06-18", "2025-11-25"} {
		assert.Error(t, Validate(v, batch), v)
	}
}

func TestUnknownVersionIsAnError(t *testing.T) {
	assert.Error(t, Validate("2026-07-28", []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)))
	assert.Error(t, ValidateResult("1999-01-01", "ping", []byte(`{}`)))
}

func TestValidateIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	for i := 0; i < 8; i++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for _, v := range allVersions {
				_ = Validate(v, frame("tools/call", examples["tools/call"]))
				_ = ValidateResult(v, "roots/list", []byte(examples["roots/list"].result))
			}
		}()
	}
	for i := 0; i < 8; i++ {
		<-done
	}
}

func TestFormatsAreAssertedInEveryVersion(t *testing.T) {
	for _, v := range allVersions {
		err := Validate(v, []byte(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"not a uri"}}`))
		assert.Error(t, err, v)
	}
}
