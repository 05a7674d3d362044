package httpserve

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func TestSSEEventFormat(t *testing.T) {
	assert.Equal(t, "id: 1-1\nretry: 250\ndata:\n\n", string(AppendSSEEvent(nil, "1-1", "", 250*time.Millisecond, nil)))
	assert.Equal(t, "event: message\ndata: {}\n\n", string(AppendSSEEvent(nil, "", "message", 0, []byte("{}"))))
	// A line break inside the data cannot end the event early.
	assert.Equal(t, "data: a\ndata: b\ndata: c\n\n", string(AppendSSEEvent(nil, "", "", 0, []byte("a\nb\r\nc"))))
}

func TestServeAnswersUntilClose(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := Serve(ln, &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	})})
	url := "http://" + ln.Addr().String()
	resp, err := http.Get(url)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusTeapot, resp.StatusCode)

	require.NoError(t, s.Close(context.Background()))
	require.NoError(t, s.Close(context.Background()), "a second Close returns the first one's result")
	_, err = http.Get(url)
	assert.Error(t, err, "the port is released")
}
