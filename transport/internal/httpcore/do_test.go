package httpcore

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echoServer answers /mcp with the request's body and Authorization, and
// sends /old to /mcp with a 307 (which keeps the method and the body).
func echoServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
			return
		}
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Auth", r.Header.Get("Authorization"))
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, client *http.Client, raw string) (string, http.Header) {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	var body Body
	resp, err := Do(client, NewPost(context.Background(), u, nil, 0, &body, []byte(`{"id":1}`)))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b), resp.Header
}

func TestDoSendsAsClientDoes(t *testing.T) {
	srv := echoServer(t)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	plain := &http.Client{Transport: tr}

	got, _ := post(t, plain, srv.URL+"/mcp")
	assert.Equal(t, `{"id":1}`, got)

	got, _ = post(t, plain, srv.URL+"/old")
	assert.Equal(t, `{"id":1}`, got, "a redirect is followed with the body")

	u, _ := url.Parse(srv.URL)
	u.User = url.UserPassword("u", "p")
	_, h := post(t, plain, u.String()+"/mcp")
	assert.Equal(t, "Basic dTpw", h.Get("X-Auth"), "user info in the URL becomes basic auth, as with Client.Do")

	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	got, _ = post(t, &http.Client{Transport: tr, Jar: jar}, srv.URL+"/old")
	assert.Equal(t, `{"id":1}`, got, "a client with a jar goes through Client.Do")
}

func TestDoReturnsTheTransportsError(t *testing.T) {
	srv := echoServer(t)
	u, _ := url.Parse(srv.URL + "/mcp")
	srv.Close()
	var body Body
	_, err := Do(&http.Client{Transport: &http.Transport{}}, NewPost(context.Background(), u, nil, 0, &body, []byte(`{}`)))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), u.Host+"/mcp", "not wrapped in *url.Error")
}

func TestDoReportsAnHTTPAnswerToHTTPSAsClientDoDoes(t *testing.T) {
	srv := echoServer(t)
	u, _ := url.Parse(srv.URL + "/mcp")
	u.Scheme = "https"
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	var body Body
	_, err := Do(&http.Client{Transport: tr}, NewPost(context.Background(), u, nil, 0, &body, []byte(`{}`)))
	assert.ErrorIs(t, err, http.ErrSchemeMismatch)
}
