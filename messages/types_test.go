package messages

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each family type decodes realistic JSON (shaped after the schemas,
// newest fields included) and marshals back to the same JSON.
func TestFamilyTypesRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		new  func() any
		json string
	}{
		{"InitializeParams", func() any { return new(InitializeParams) }, `{
			"protocolVersion":"2025-11-25",
			"capabilities":{"roots":{"listChanged":true},"sampling":{"context":{},"tools":{}},
				"elicitation":{"form":{},"url":{}},"experimental":{"x":{"on":true}},"tasks":{"list":{}}},
			"clientInfo":{"name":"mcpengine","title":"MCP Engine","version":"1.2.3","description":"d",
				"websiteUrl":"https://example.com","icons":[{"src":"https://example.com/i.png","mimeType":"image/png","sizes":["48x48"],"theme":"dark"}]},
			"_meta":{"progressToken":"p1"}}`},
		{"InitializeResult", func() any { return new(InitializeResult) }, `{
			"protocolVersion":"2025-06-18",
			"capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},
				"prompts":{},"logging":{},"completions":{},"experimental":{"e":{}},"tasks":{"requests":{"tools":{"call":{}}}}},
			"serverInfo":{"name":"srv","version":"0.1"},"instructions":"Use tools wisely.","_meta":{"k":1}}`},
		{"InitializedParams", func() any { return new(InitializedParams) }, `{"_meta":{"a":"b"}}`},
		{"PaginatedParams", func() any { return new(PaginatedParams) }, `{"cursor":"abc","_meta":{"progressToken":3}}`},
		{"ListToolsResult", func() any { return new(ListToolsResult) }, `{"tools":[{
			"name":"get_weather","title":"Weather","description":"Get weather",
			"inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},
			"outputSchema":{"type":"object","properties":{"temp":{"type":"number"}}},
			"annotations":{"title":"W","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false},
			"execution":{"taskSupport":"optional"},
			"icons":[{"src":"data:image/png;base64,AAA="}],"_meta":{"v":2}}],"nextCursor":"n2","_meta":{"m":true}}`},
		{"CallToolParams", func() any { return new(CallToolParams) }, `{"name":"get_weather","arguments":{"city":"Paris","days":[1,2]},"task":{"ttl":60000},"_meta":{"progressToken":9}}`},
		{"CallToolResult", func() any { return new(CallToolResult) }, `{"content":[
			{"type":"text","text":"22°C","annotations":{"audience":["user","assistant"],"priority":0.7,"lastModified":"2025-01-12T15:00:58Z"}},
			{"type":"text","text":""},
			{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},
			{"type":"audio","data":"UklGRg==","mimeType":"audio/wav","_meta":{"a":1}},
			{"type":"resource","resource":{"uri":"file:///notes.txt","mimeType":"text/plain","text":"hello"}},
			{"type":"resource","resource":{"uri":"file:///b.bin","blob":"AAEC"}},
			{"type":"resource_link","uri":"file:///main.rs","name":"main.rs","title":"Main","description":"entry","mimeType":"text/x-rust","size":1024,"icons":[{"src":"https://e.com/r.svg"}]}
			],"structuredContent":{"temp":22},"isError":true,"_meta":{"t":1}}`},
		{"ListResourcesResult", func() any { return new(ListResourcesResult) }, `{"resources":[{
			"uri":"file:///project/README.md","name":"README.md","title":"Readme","description":"docs",
			"mimeType":"text/markdown","size":2048,"annotations":{"audience":["user"],"priority":1},
			"icons":[{"src":"https://e.com/md.png"}],"_meta":{"x":1}}],"nextCursor":"r2"}`},
		{"ListResourceTemplatesResult", func() any { return new(ListResourceTemplatesResult) }, `{"resourceTemplates":[{
			"uriTemplate":"file:///{path}","name":"files","title":"Files","description":"any file","mimeType":"text/plain",
			"annotations":{"priority":0.2},"icons":[{"src":"https://e.com/f.png"}],"_meta":{"x":1}}],"nextCursor":"t2"}`},
		{"ReadResourceParams", func() any { return new(ReadResourceParams) }, `{"uri":"file:///a.txt","_meta":{"progressToken":"r"}}`},
		{"ReadResourceResult", func() any { return new(ReadResourceResult) }, `{"contents":[
			{"uri":"file:///a.txt","mimeType":"text/plain","text":"hi","_meta":{"a":1}},
			{"uri":"file:///empty.txt","text":""},
			{"uri":"file:///a.png","mimeType":"image/png","blob":"iVBORw0KGgo="}]}`},
		{"SubscribeParams", func() any { return new(SubscribeParams) }, `{"uri":"file:///a.txt"}`},
		{"UnsubscribeParams", func() any { return new(UnsubscribeParams) }, `{"uri":"file:///a.txt"}`},
		{"ResourceUpdatedParams", func() any { return new(ResourceUpdatedParams) }, `{"uri":"file:///a.txt","_meta":{"a":1}}`},
		{"ListPromptsResult", func() any { return new(ListPromptsResult) }, `{"prompts":[{
			"name":"code_review","title":"Review","description":"Review code",
			"arguments":[{"name":"code","title":"Code","description":"the code","required":true},{"name":"style"}],
			"icons":[{"src":"https://e.com/p.png"}],"_meta":{"x":1}}],"nextCursor":"p2"}`},
		{"GetPromptParams", func() any { return new(GetPromptParams) }, `{"name":"code_review","arguments":{"code":"x := 1"}}`},
		{"GetPromptResult", func() any { return new(GetPromptResult) }, `{"description":"Code review","messages":[
			{"role":"user","content":{"type":"text","text":"Please review"}},
			{"role":"assistant","content":{"type":"resource","resource":{"uri":"file:///x.go","text":"package x"}}}]}`},
		{"CreateMessageParams", func() any { return new(CreateMessageParams) }, `{
			"messages":[{"role":"user","content":{"type":"text","text":"What is 2+2?"}},
				{"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"calc","input":{"expr":"2+2"}}]},
				{"role":"user","content":[{"type":"tool_result","toolUseId":"call_1","content":[{"type":"text","text":"4"}],"structuredContent":{"v":4},"isError":false}],"_meta":{"m":1}}],
			"modelPreferences":{"hints":[{"name":"claude-3-sonnet"},{"name":"claude"}],"costPriority":0.3,"speedPriority":0.8,"intelligencePriority":0.5},
			"systemPrompt":"You are helpful.","includeContext":"thisServer","temperature":0.1,"maxTokens":100,
			"stopSequences":["\n\n"],"metadata":{"provider":"x"},
			"tools":[{"name":"calc","inputSchema":{"type":"object"}}],"toolChoice":{"mode":"auto"},"task":{"ttl":1000},"_meta":{"progressToken":"s"}}`},
		{"CreateMessageResult", func() any { return new(CreateMessageResult) }, `{"role":"assistant","content":{"type":"text","text":"4"},"model":"claude-3-sonnet-20240307","stopReason":"endTurn","_meta":{"a":1}}`},
		{"CreateMessageResult with tool use array", func() any { return new(CreateMessageResult) }, `{"role":"assistant","content":[{"type":"text","text":"let me"},{"type":"tool_use","id":"c2","name":"calc","input":{}}],"model":"m","stopReason":"toolUse"}`},
		{"ListRootsResult", func() any { return new(ListRootsResult) }, `{"roots":[{"uri":"file:///home/user/project","name":"Project","_meta":{"a":1}},{"uri":"file:///tmp"}],"_meta":{"b":2}}`},
		{"SetLevelParams", func() any { return new(SetLevelParams) }, `{"level":"warning"}`},
		{"LoggingMessageParams", func() any { return new(LoggingMessageParams) }, `{"level":"error","logger":"database","data":{"error":"Connection failed","details":{"host":"localhost","port":5432}}}`},
		{"LoggingMessageParams with string data", func() any { return new(LoggingMessageParams) }, `{"level":"info","data":"started"}`},
		{"ProgressParams", func() any { return new(ProgressParams) }, `{"progressToken":"abc123","progress":50,"total":100,"message":"Reticulating splines..."}`},
		{"ProgressParams with number token", func() any { return new(ProgressParams) }, `{"progressToken":7,"progress":0.25}`},
		{"CancelledParams", func() any { return new(CancelledParams) }, `{"requestId":"123","reason":"User requested cancellation"}`},
		{"CancelledParams with number id", func() any { return new(CancelledParams) }, `{"requestId":123}`},
		{"CompleteParams", func() any { return new(CompleteParams) }, `{"ref":{"type":"ref/prompt","name":"code_review","title":"Review"},"argument":{"name":"language","value":"py"},"context":{"arguments":{"framework":"flask"}},"_meta":{"x":1}}`},
		{"CompleteParams resource", func() any { return new(CompleteParams) }, `{"ref":{"type":"ref/resource","uri":"file:///{path}"},"argument":{"name":"path","value":""}}`},
		{"CompleteResult", func() any { return new(CompleteResult) }, `{"completion":{"values":["python","pytorch","pyside"],"total":10,"hasMore":true}}`},
		{"ElicitParams form", func() any { return new(ElicitParams) }, `{"mode":"form","message":"Please provide your GitHub username","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`},
		{"ElicitParams url", func() any { return new(ElicitParams) }, `{"mode":"url","message":"Authorize","url":"https://example.com/auth","elicitationId":"550e8400","task":{"ttl":5},"_meta":{"a":1}}`},
		{"ElicitResult", func() any { return new(ElicitResult) }, `{"action":"accept","content":{"name":"octocat","age":30,"ok":true,"tags":["a","b"]},"_meta":{"x":1}}`},
		{"ElicitResult decline", func() any { return new(ElicitResult) }, `{"action":"decline"}`},
		{"ElicitationCompleteParams", func() any { return new(ElicitationCompleteParams) }, `{"elicitationId":"550e8400"}`},
		{"EmptyResult", func() any { return new(EmptyResult) }, `{}`},
		{"EmptyResult with meta", func() any { return new(EmptyResult) }, `{"_meta":{"a":1}}`},
		{"ListChangedParams", func() any { return new(ListChangedParams) }, `{"_meta":{"a":1}}`},
		{"RootsListChangedParams", func() any { return new(RootsListChangedParams) }, `{}`},
		{"ListRootsParams", func() any { return new(ListRootsParams) }, `{}`},
		{"PingParams", func() any { return new(PingParams) }, `{"_meta":{"a":1}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := c.new()
			require.NoError(t, Unmarshal([]byte(c.json), v))
			out, err := Marshal(v)
			require.NoError(t, err)
			assert.JSONEq(t, c.json, string(out))
			_, client := v.(ClientPayload)
			_, server := v.(ServerPayload)
			assert.True(t, client || server, "%T has no direction marker", v)
		})
	}
}

func TestDeclaredEmptyCapabilitiesMarshalAsEmptyObjects(t *testing.T) {
	b, err := Marshal(ServerCapabilities{Logging: &LoggingCapability{}, Completions: &CompletionsCapability{}, Tools: &ToolsCapability{}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"logging":{},"completions":{},"tools":{}}`, string(b))

	b, err = Marshal(ClientCapabilities{Sampling: &SamplingCapability{}, Elicitation: &ElicitationCapability{}, Roots: &RootsCapability{}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"sampling":{},"elicitation":{},"roots":{}}`, string(b))

	b, err = Marshal(ClientCapabilities{})
	require.NoError(t, err)
	assert.JSONEq(t, `{}`, string(b))
}

func TestCapabilitiesDecodePresenceAsNonNil(t *testing.T) {
	var caps ServerCapabilities
	require.NoError(t, Unmarshal([]byte(`{"logging":{},"prompts":{"listChanged":true}}`), &caps))
	assert.NotNil(t, caps.Logging)
	assert.NotNil(t, caps.Prompts)
	assert.True(t, caps.Prompts.ListChanged)
	assert.Nil(t, caps.Tools)
	assert.Nil(t, caps.Resources)
	assert.Nil(t, caps.Completions)
}

func TestToolAnnotationsTellAbsentFromFalse(t *testing.T) {
	var a ToolAnnotations
	require.NoError(t, Unmarshal([]byte(`{"readOnlyHint":false}`), &a))
	require.NotNil(t, a.ReadOnlyHint)
	assert.False(t, *a.ReadOnlyHint)
	assert.Nil(t, a.DestructiveHint)
}

func TestResourceContentsTextAndBlob(t *testing.T) {
	cases := []struct {
		name   string
		in     ResourceContents
		want   string
		isBlob bool
	}{
		{"empty text keeps its member", ResourceContents{URI: "file:///e"}, `{"uri":"file:///e","text":""}`, false},
		{"text", ResourceContents{URI: "file:///t", MimeType: "text/plain", Text: "hi"}, `{"uri":"file:///t","mimeType":"text/plain","text":"hi"}`, false},
		{"blob wins over text", ResourceContents{URI: "file:///b", Text: "ignored", Blob: "AAEC"}, `{"uri":"file:///b","blob":"AAEC"}`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := Marshal(c.in)
			require.NoError(t, err)
			assert.JSONEq(t, c.want, string(b))
			var back ResourceContents
			require.NoError(t, Unmarshal(b, &back))
			assert.Equal(t, c.isBlob, back.IsBlob())
		})
	}
}

func TestContentBlockEmitsOnlyTheMembersOfItsType(t *testing.T) {
	size := int64(5)
	cases := []struct {
		name string
		in   ContentBlock
		want string
	}{
		{"text drops foreign members", ContentBlock{Type: "text", Text: "t", Data: "x", URI: "u"}, `{"type":"text","text":"t"}`},
		{"empty text", TextContent(""), `{"type":"text","text":""}`},
		{"image", ImageContent("AAA=", "image/png"), `{"type":"image","data":"AAA=","mimeType":"image/png"}`},
		{"audio", AudioContent("BBB=", "audio/wav"), `{"type":"audio","data":"BBB=","mimeType":"audio/wav"}`},
		{"embedded resource", EmbeddedResource(ResourceContents{URI: "file:///x", Text: ""}), `{"type":"resource","resource":{"uri":"file:///x","text":""}}`},
		{"resource without contents still has the member", ContentBlock{Type: "resource"}, `{"type":"resource","resource":{"uri":"","text":""}}`},
		{"resource link", ContentBlock{Type: "resource_link", URI: "file:///y", Name: "y", Size: &size}, `{"type":"resource_link","uri":"file:///y","name":"y","size":5}`},
		{"resource link constructor", ResourceLinkContent("file:///z", "z"), `{"type":"resource_link","uri":"file:///z","name":"z"}`},
		{"tool use without input", ContentBlock{Type: "tool_use", ID: "c1", Name: "calc"}, `{"type":"tool_use","id":"c1","name":"calc","input":{}}`},
		{"tool result without content", ContentBlock{Type: "tool_result", ToolUseID: "c1"}, `{"type":"tool_result","toolUseId":"c1","content":[]}`},
		{"unknown type passes every member", ContentBlock{Type: "future", Text: "t", URI: "u"}, `{"type":"future","text":"t","uri":"u"}`},
		{"annotations and meta", ContentBlock{Type: "text", Text: "a", Annotations: &Annotations{Audience: []string{RoleUser}}, Meta: map[string]any{"k": "v"}},
			`{"type":"text","text":"a","annotations":{"audience":["user"]},"_meta":{"k":"v"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := Marshal(c.in)
			require.NoError(t, err)
			assert.JSONEq(t, c.want, string(b))
		})
	}
}

func TestSamplingContentIsOneBlockOrAnArray(t *testing.T) {
	var m SamplingMessage
	require.NoError(t, m.SetContent(TextContent("hi")))
	assert.JSONEq(t, `{"type":"text","text":"hi"}`, string(m.Content), "one block is a bare object, as every version requires")
	blocks, err := m.Blocks()
	require.NoError(t, err)
	assert.Equal(t, []ContentBlock{TextContent("hi")}, blocks)

	var r CreateMessageResult
	require.NoError(t, r.SetContent(TextContent("a"), ContentBlock{Type: ContentTypeToolUse, ID: "1", Name: "f", Input: RawMessage(`{"x":1}`)}))
	assert.JSONEq(t, `[{"type":"text","text":"a"},{"type":"tool_use","id":"1","name":"f","input":{"x":1}}]`, string(r.Content))
	blocks, err = r.Blocks()
	require.NoError(t, err)
	require.Len(t, blocks, 2)
	assert.Equal(t, "f", blocks[1].Name)

	assert.Error(t, m.SetContent())
	for _, bad := range []string{``, `"text"`, `42`, `null`, `[1]`} {
		_, err := DecodeSamplingContent(RawMessage(bad))
		assert.Error(t, err, bad)
	}
}

func TestWithProgressTokenSetsTheMetaKey(t *testing.T) {
	meta := WithProgressToken(nil, StringID("p"))
	b, err := Marshal(ListToolsParams{Meta: meta})
	require.NoError(t, err)
	assert.JSONEq(t, `{"_meta":{"progressToken":"p"}}`, string(b))

	meta = WithProgressToken(map[string]any{"other": 1}, NumberID(4))
	assert.Equal(t, NumberID(4), meta[MetaProgressToken])
	assert.Equal(t, 1, meta["other"])
}

func TestZeroValuesEmitOnlyRequiredMembers(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{&InitializeParams{ProtocolVersion: Version20241105, ClientInfo: Implementation{Name: "c", Version: "1"}},
			`{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`},
		{&PaginatedParams{}, `{}`},
		{&CallToolParams{Name: "x"}, `{"name":"x"}`},
		{&ProgressParams{ProgressToken: NumberID(1), Progress: 0}, `{"progressToken":1,"progress":0}`},
		{&CancelledParams{RequestID: NumberID(1)}, `{"requestId":1}`},
		{&CompleteParams{Ref: CompleteReference{Type: RefPrompt, Name: "p"}, Argument: CompleteArgument{Name: "a"}},
			`{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":""}}`},
		{&ElicitResult{Action: ElicitActionCancel}, `{"action":"cancel"}`},
		{&CreateMessageResult{Role: RoleAssistant, Content: RawMessage(`{"type":"text","text":""}`), Model: "m"},
			`{"role":"assistant","content":{"type":"text","text":""},"model":"m"}`},
		{&EmptyResult{}, `{}`},
		{&SetLevelParams{Level: LoggingLevelDebug}, `{"level":"debug"}`},
	}
	for _, c := range cases {
		b, err := Marshal(c.v)
		require.NoError(t, err)
		assert.JSONEq(t, c.want, string(b), "%T", c.v)
	}
}
