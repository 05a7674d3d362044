package schemacheck

// Valid params and results for every method of every embedded version.
// Each is valid in every version that defines the method, so one table
// serves all versions.

type example struct {
	notification bool
	params       string // "" = no params member
	result       string // requests only
}

const task = `{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:01Z","ttl":null}`

var examples = map[string]example{
	"initialize": {
		params: `{"protocolVersion":"2024-11-05","capabilities":{"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"mcpengine","version":"1.0.0"}}`,
		result: `{"protocolVersion":"2024-11-05","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"srv","version":"0.1"},"instructions":"be nice"}`,
	},
	"ping":                     {result: `{}`},
	"tools/list":               {params: `{"cursor":"page2"}`, result: `{"tools":[{"name":"echo","description":"echoes","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}],"nextCursor":"page3"}`},
	"tools/call":               {params: `{"name":"echo","arguments":{"text":"hi"}}`, result: `{"content":[{"type":"text","text":"hi"}],"isError":false}`},
	"resources/list":           {params: `{}`, result: `{"resources":[{"uri":"file:///a.txt","name":"a.txt","mimeType":"text/plain"}]}`},
	"resources/templates/list": {result: `{"resourceTemplates":[{"uriTemplate":"file:///{path}","name":"files"}]}`},
	"resources/read":           {params: `{"uri":"file:///a.txt"}`, result: `{"contents":[{"uri":"file:///a.txt","text":""},{"uri":"file:///b.png","mimeType":"image/png","blob":"AAEC"}]}`},
	"resources/subscribe":      {params: `{"uri":"file:///a.txt"}`, result: `{}`},
	"resources/unsubscribe":    {params: `{"uri":"file:///a.txt"}`, result: `{}`},
	"prompts/list":             {result: `{"prompts":[{"name":"greet","arguments":[{"name":"who","required":true}]}]}`},
	"prompts/get":              {params: `{"name":"greet","arguments":{"who":"world"}}`, result: `{"description":"d","messages":[{"role":"user","content":{"type":"text","text":"hello world"}}]}`},
	"completion/complete":      {params: `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"wo"}}`, result: `{"completion":{"values":["world"],"total":1,"hasMore":false}}`},
	"logging/setLevel":         {params: `{"level":"warning"}`, result: `{}`},
	"sampling/createMessage": {
		params: `{"messages":[{"role":"user","content":{"type":"text","text":"2+2?"}}],"maxTokens":64,"modelPreferences":{"hints":[{"name":"claude"}],"speedPriority":0.5}}`,
		result: `{"role":"assistant","content":{"type":"text","text":"4"},"model":"m-1","stopReason":"endTurn"}`,
	},
	"roots/list": {result: `{"roots":[{"uri":"file:///home/u/project","name":"project"}]}`},
	"elicitation/create": {
		params: `{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`,
		result: `{"action":"accept","content":{"name":"Ada"}}`,
	},
	"tasks/get":    {params: `{"taskId":"t1"}`, result: task},
	"tasks/result": {params: `{"taskId":"t1"}`, result: `{"anything":true}`},
	"tasks/cancel": {params: `{"taskId":"t1"}`, result: task},
	"tasks/list":   {params: `{}`, result: `{"tasks":[` + task + `]}`},

	"notifications/initialized":            {notification: true},
	"notifications/cancelled":              {notification: true, params: `{"requestId":7,"reason":"user abort"}`},
	"notifications/progress":               {notification: true, params: `{"progressToken":"tok","progress":1,"total":4}`},
	"notifications/message":                {notification: true, params: `{"level":"error","logger":"db","data":{"err":"boom"}}`},
	"notifications/resources/updated":      {notification: true, params: `{"uri":"file:///a.txt"}`},
	"notifications/resources/list_changed": {notification: true},
	"notifications/tools/list_changed":     {notification: true},
	"notifications/prompts/list_changed":   {notification: true},
	"notifications/roots/list_changed":     {notification: true},
	"notifications/elicitation/complete":   {notification: true, params: `{"elicitationId":"e1"}`},
	"notifications/tasks/status":           {notification: true, params: task},
}

func frame(method string, ex example) []byte {
	s := `{"jsonrpc":"2.0",`
	if !ex.notification {
		s += `"id":1,`
	}
	s += `"method":"` + method + `"`
	if ex.params != "" {
		s += `,"params":` + ex.params
	}
	return []byte(s + "}")
}
