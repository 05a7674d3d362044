package demoserver

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

func TestResourcesPagination(t *testing.T) {
	c, _ := start(t, Options{Resources: 25, PageSize: 10})
	seen := map[string]int{}
	cursor, pages := "", 0
	for {
		var res messages.ListResourcesResult
		c.result(messages.MethodResourcesList, &messages.PaginatedParams{Cursor: cursor}, &res)
		pages++
		for _, r := range res.Resources {
			seen[r.URI]++
			assert.NotEmpty(t, r.Name)
			assert.NotEmpty(t, r.MimeType)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	assert.Equal(t, 3, pages)
	assert.Len(t, seen, 25)
	for uri, n := range seen {
		assert.Equal(t, 1, n, uri)
	}
	assert.Equal(t, 1, seen["demo://resource/25"])
}

func TestResourcesDefaultAndNone(t *testing.T) {
	c, _ := start(t, Options{})
	var res messages.ListResourcesResult
	c.result(messages.MethodResourcesList, nil, &res)
	assert.Len(t, res.Resources, 10)
	assert.NotEmpty(t, res.NextCursor)

	c2, _ := start(t, Options{Resources: -1})
	res = messages.ListResourcesResult{}
	c2.result(messages.MethodResourcesList, nil, &res)
	assert.Empty(t, res.Resources)
	assert.Empty(t, res.NextCursor)
}

func TestResourcesRead(t *testing.T) {
	c, _ := start(t, Options{})
	read := func(uri string) messages.ResourceContents {
		t.Helper()
		var res messages.ReadResourceResult
		c.result(messages.MethodResourcesRead, &messages.ReadResourceParams{URI: uri}, &res)
		require.Len(t, res.Contents, 1)
		assert.Equal(t, uri, res.Contents[0].URI)
		return res.Contents[0]
	}
	txt := read("demo://resource/2")
	assert.False(t, txt.IsBlob())
	assert.Equal(t, "text/plain", txt.MimeType)
	assert.Equal(t, "Resource 2: this is a text resource.", txt.Text)

	blob := read("demo://resource/1")
	require.True(t, blob.IsBlob())
	data, err := base64.StdEncoding.DecodeString(blob.Blob)
	require.NoError(t, err)
	assert.Len(t, data, resourceBlobSize)

	assert.Equal(t, "Item abc", read("demo://item/abc").Text)
	assert.JSONEq(t, `{"name":"bob","kind":"user"}`, read("demo://user/bob/profile").Text)

	for _, uri := range []string{"demo://resource/0", "demo://resource/101", "demo://resource/01", "demo://item/", "demo://item/a/b", "demo://user//profile", "other://x"} {
		werr := c.callErr(messages.MethodResourcesRead, &messages.ReadResourceParams{URI: uri})
		assert.Equal(t, int64(messages.CodeResourceNotFound), werr.Code, uri)
		assert.Contains(t, string(werr.Data), uri)
	}
}

func TestTemplates(t *testing.T) {
	c, _ := start(t, Options{PageSize: 1})
	var all []messages.ResourceTemplate
	cursor := ""
	for {
		var res messages.ListResourceTemplatesResult
		c.result(messages.MethodResourcesTemplatesList, &messages.PaginatedParams{Cursor: cursor}, &res)
		all = append(all, res.ResourceTemplates...)
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	require.Len(t, all, 2)
	assert.Equal(t, "demo://item/{id}", all[0].URITemplate)
	assert.Equal(t, "demo://user/{name}/profile", all[1].URITemplate)
}

func TestPrompts(t *testing.T) {
	c, _ := start(t, Options{PageSize: 3})
	var names []string
	cursor := ""
	for {
		var res messages.ListPromptsResult
		c.result(messages.MethodPromptsList, &messages.PaginatedParams{Cursor: cursor}, &res)
		for _, p := range res.Prompts {
			names = append(names, p.Name)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	assert.Equal(t, []string{"greet", "summarize", "code_review", "hello"}, names)

	var got messages.GetPromptResult
	c.result(messages.MethodPromptsGet, &messages.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ann"}}, &got)
	require.Len(t, got.Messages, 1)
	assert.Equal(t, messages.RoleUser, got.Messages[0].Role)
	assert.Contains(t, got.Messages[0].Content.Text, "Ann")

	got = messages.GetPromptResult{}
	c.result(messages.MethodPromptsGet, &messages.GetPromptParams{Name: "summarize", Arguments: map[string]string{"text": "T", "style": "detailed"}}, &got)
	require.Len(t, got.Messages, 2)
	assert.Contains(t, got.Messages[0].Content.Text, "detailed")
	assert.Equal(t, "T", got.Messages[1].Content.Text)

	werr := c.callErr(messages.MethodPromptsGet, &messages.GetPromptParams{Name: "nope"})
	assert.Equal(t, int64(messages.CodeInvalidParams), werr.Code)
	werr = c.callErr(messages.MethodPromptsGet, &messages.GetPromptParams{Name: "greet"})
	assert.Equal(t, int64(messages.CodeInvalidParams), werr.Code)
}

func TestCompletion(t *testing.T) {
	c, _ := start(t, Options{})
	complete := func(ref messages.CompleteReference, arg, value string) messages.Completion {
		t.Helper()
		var res messages.CompleteResult
		c.result(messages.MethodCompletionComplete, &messages.CompleteParams{Ref: ref, Argument: messages.CompleteArgument{Name: arg, Value: value}}, &res)
		return res.Completion
	}
	greet := messages.CompleteReference{Type: messages.RefPrompt, Name: "greet"}
	got := complete(greet, "name", "al")
	assert.Equal(t, []string{"Alice", "Albert"}, got.Values)
	require.NotNil(t, got.Total)
	assert.Equal(t, 2, *got.Total)
	assert.False(t, got.HasMore)

	assert.Equal(t, []string{"bullet-points"}, complete(messages.CompleteReference{Type: messages.RefPrompt, Name: "summarize"}, "style", "bu").Values)
	assert.Empty(t, complete(greet, "other", "").Values)

	item := messages.CompleteReference{Type: messages.RefResource, URI: "demo://item/{id}"}
	got = complete(item, "id", "")
	assert.Len(t, got.Values, 100)
	assert.Equal(t, 150, *got.Total)
	assert.True(t, got.HasMore)
	got = complete(item, "id", "14")
	assert.Equal(t, []string{"14", "140", "141", "142", "143", "144", "145", "146", "147", "148", "149"}, got.Values)

	werr := c.callErr(messages.MethodCompletionComplete, &messages.CompleteParams{Ref: messages.CompleteReference{Type: messages.RefPrompt, Name: "nope"}})
	assert.Equal(t, int64(messages.CodeInvalidParams), werr.Code)
	werr = c.callErr(messages.MethodCompletionComplete, &messages.CompleteParams{Ref: messages.CompleteReference{Type: "ref/other"}})
	assert.Equal(t, int64(messages.CodeInvalidParams), werr.Code)
}
