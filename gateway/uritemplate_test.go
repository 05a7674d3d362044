package gateway

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestURITemplateMatchesItsExpansionsOnly(t *testing.T) {
	cases := []struct {
		template, uri string
		want          bool
	}{
		{"demo://resource/{id}", "demo://resource/100", true},
		{"demo://resource/{id}", "demo://resource/1/2", false}, // a simple expression is one segment
		{"demo://resource/{id}", "demo://other/1", false},
		{"file:///{+path}", "file:///a/b/c.txt", true}, // reserved expansion crosses segments
		{"http://x/search{?q,lang}", "http://x/search?q=go&lang=en", true},
		{"http://x/search{?q,lang}", "http://x/find?q=go", false},
		{"repo://{owner}/{name}/issues", "repo://mcp/engine/issues", true},
		{"repo://{owner}/{name}/issues", "repo://mcp/issues", false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, parseURITemplate(c.template).match(c.uri), "%s ~ %s", c.template, c.uri)
	}
	assert.False(t, parseURITemplate("demo://{unclosed").match("demo://x"), "a malformed template routes nothing")
	assert.False(t, parseURITemplate("").match(""))
}
