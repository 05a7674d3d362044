package httpserve

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLoopbackRules(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST": true, "127.0.0.1": true, "127.8.9.10": true, "::1": true, "[::1]": true,
		"": false, "0.0.0.0": false, "::": false, "10.0.0.1": false, "example.com": false, "localhost.example.com": false,
	} {
		assert.Equal(t, want, IsLoopbackHost(host), host)
	}
	assert.True(t, IsLoopbackAddr("127.0.0.1:0"))
	assert.True(t, IsLoopbackAddr("[::1]:8080"))
	assert.False(t, IsLoopbackAddr(":8080"), "every interface")
	assert.False(t, IsLoopbackAddr("0.0.0.0:8080"))
	assert.False(t, IsLoopbackAddr("127.0.0.1"), "no port: not a listen address")
}

func TestOriginCheckRefusesForeignBrowsers(t *testing.T) {
	req := func(origin string) bool {
		r := httptest.NewRequest("POST", "http://127.0.0.1:9000/mcp", nil)
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		return OriginAllowed(r, []string{"https://app.example"})
	}
	assert.True(t, req(""), "not a browser")
	assert.True(t, req("http://localhost:3000"))
	assert.True(t, req("http://127.0.0.1:9000"), "own host")
	assert.True(t, req("https://app.example"), "allowed")
	assert.False(t, req("https://evil.example"))
	assert.False(t, req("null"))
}

func TestDecodeBodyAnswersParseAndInvalidErrors(t *testing.T) {
	w := httptest.NewRecorder()
	_, ok := DecodeBody(w, []byte(`{not json`))
	assert.False(t, ok)
	assert.Equal(t, 400, w.Code)
	assert.Contains(t, w.Body.String(), `"code":-32700`)

	w = httptest.NewRecorder()
	_, ok = DecodeBody(w, []byte(`{"jsonrpc":"1.0","id":1,"method":"x"}`))
	assert.False(t, ok)
	assert.Contains(t, w.Body.String(), `"code":-32600`)

	w = httptest.NewRecorder()
	msgs, ok := DecodeBody(w, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	assert.True(t, ok)
	assert.Len(t, msgs, 1)

	r := httptest.NewRequest("POST", "/", strings.NewReader(strings.Repeat("x", 100)))
	w = httptest.NewRecorder()
	assert.Nil(t, ReadBody(w, r, 10))
	assert.Equal(t, 413, w.Code)
}
