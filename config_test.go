package mcpengine_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
)

const claudeDesktopConfig = `{
  "mcpServers": {
    "files": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "${MCPENGINE_TEST_ROOT}"],
      "env": {"API_KEY": "${MCPENGINE_TEST_SECRET}", "PLAIN": "x"},
      "cwd": "/tmp"
    },
    "remote": {"type": "http", "url": "https://example.invalid/mcp", "headers": {"Authorization": "Bearer ${MCPENGINE_TEST_SECRET}"}}
  }
}`

func TestMCPServersConfigExpandsEnvironmentReferences(t *testing.T) {
	t.Setenv("MCPENGINE_TEST_ROOT", "/srv/data")
	t.Setenv("MCPENGINE_TEST_SECRET", "s3cret")
	path := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	require.NoError(t, os.WriteFile(path, []byte(claudeDesktopConfig), 0o600))

	f, err := mcpengine.LoadConfigFile(path)
	require.NoError(t, err)
	files, err := f.Server("files")
	require.NoError(t, err)
	assert.Equal(t, "npx", files.Command)
	assert.Equal(t, []string{"-y", "@modelcontextprotocol/server-filesystem", "/srv/data"}, files.Args)
	assert.Equal(t, map[string]string{"API_KEY": "s3cret", "PLAIN": "x"}, files.Env)
	assert.Equal(t, "/tmp", files.Cwd)

	remote, err := f.Server("remote")
	require.NoError(t, err)
	assert.Equal(t, "Bearer s3cret", remote.Headers["Authorization"])

	_, err = f.Server("nope")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "files, remote", "the error lists what exists")
}

func TestMCPServersConfigRejectsDocumentsWithoutServers(t *testing.T) {
	_, err := mcpengine.ParseConfig([]byte(`{"servers": {}}`))
	require.Error(t, err)
	_, err = mcpengine.ParseConfig([]byte(`{not json`))
	require.Error(t, err)
}

func TestURLServerConfigCarriesHeadersAndCredentialsFromTheEnvironment(t *testing.T) {
	t.Setenv("MCP_TEST_TOKEN", "s3cret-token")
	t.Setenv("MCP_TEST_TEAM", "blue")
	srv := demoserver.New(demoserver.Options{})
	h := srv.StreamableHandler(demoserver.HTTPOptions{})
	var refused atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret-token" || r.Header.Get("X-Team") != "blue" {
			refused.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		_ = h.Close(context.Background())
		ts.Close()
	})

	cf, err := mcpengine.ParseConfig([]byte(`{"mcpServers": {"remote": {
		"url": "` + ts.URL + `/mcp", "type": "streamable-http",
		"headers": {"X-Team": "${MCP_TEST_TEAM}"},
		"auth": {"bearer": "${MCP_TEST_TOKEN}"}}}}`))
	require.NoError(t, err)
	sc, err := cf.Server("remote")
	require.NoError(t, err)
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 10*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "remote", Server: sc})
	require.NoError(t, err)
	require.NoError(t, s.Ping(ctx))
	assert.Zero(t, refused.Load())

	// A wrong token is refused (a 401 without a cure: Connect returns it,
	// no retry), and the error never shows the token.
	sc.Auth = &mcpengine.AuthConfig{Bearer: "wrong-token-value"}
	_, err = e.Connect(ctx, mcpengine.SessionConfig{Name: "wrong", Server: sc})
	require.Error(t, err)
	assert.ErrorIs(t, err, mcpengine.ErrUnauthorized)
	assert.NotErrorIs(t, err, context.DeadlineExceeded, "refused at once, not retried until the caller gave up")
	assert.Contains(t, err.Error(), "401")
	assert.NotContains(t, err.Error(), "wrong-token-value")
	assert.Positive(t, refused.Load())
}

func TestURLServerConfigErrorsAreClear(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 5*time.Second)
	for _, c := range []struct {
		sc   mcpengine.ServerConfig
		want string
	}{
		{mcpengine.ServerConfig{URL: "http://127.0.0.1:1/mcp", Type: "carrier-pigeon"}, "unknown server type"},
		{mcpengine.ServerConfig{URL: "/relative"}, "not an absolute URL"},
		{mcpengine.ServerConfig{URL: "http://127.0.0.1:1/mcp", Auth: &mcpengine.AuthConfig{Bearer: "a", Basic: &mcpengine.BasicAuth{Username: "u"}}}, "give one of"},
		{mcpengine.ServerConfig{URL: "http://127.0.0.1:1/mcp", Auth: &mcpengine.AuthConfig{APIKey: &mcpengine.APIKeyAuth{Value: "k"}}}, "header name"},
	} {
		_, err := e.Open(ctx, mcpengine.SessionConfig{Name: c.want, Server: c.sc})
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.want)
	}
}
