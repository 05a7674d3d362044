package httpx

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAuthHelpers(t *testing.T) {
	assert.Equal(t, "Bearer tok-123", Bearer("tok-123").Get("Authorization"))

	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header = Basic("ada", "p:ss word")
	user, pass, ok := r.BasicAuth()
	assert.True(t, ok)
	assert.Equal(t, "ada", user)
	assert.Equal(t, "p:ss word", pass)

	h := APIKey("x-api-key", "k-1")
	assert.Equal(t, http.Header{"X-Api-Key": {"k-1"}}, h)
}

func TestMergeLaterSetsWin(t *testing.T) {
	engine := http.Header{"X-Team": {"a"}, "authorization": {"Bearer old"}}
	server := Merge(Bearer("new"), http.Header{"X-Trace": {"1", "2"}})
	got := Merge(engine, server)
	assert.Equal(t, http.Header{
		"X-Team":        {"a"},
		"Authorization": {"Bearer new"},
		"X-Trace":       {"1", "2"},
	}, got)

	got["X-Trace"][0] = "changed"
	assert.Equal(t, "1", server["X-Trace"][0], "Merge copies the values")
}
