package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/internal/oauthtest"
)

// browse does what a browser does with the authorization URL login
// prints: the authorization server redirects at once (the user consented),
// and the redirect lands on login's loopback listener.
func browse(t *testing.T, authURL string) {
	t.Helper()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	defer noFollow.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	get := func(u string) *http.Response {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		require.NoError(t, err)
		resp, err := noFollow.Do(req)
		require.NoError(t, err, "requesting a page of the login")
		resp.Body.Close()
		return resp
	}
	resp := get(authURL)
	require.Equal(t, http.StatusFound, resp.StatusCode, "the authorization endpoint redirects")
	back := resp.Header.Get("Location")
	require.True(t, strings.HasPrefix(back, "http://127.0.0.1:"), "the redirect goes to the loopback listener")
	resp = get(back)
	require.Equal(t, http.StatusOK, resp.StatusCode, "the loopback listener took the code")
}

// TestLoginListLogout: engine login runs the authorization code flow with
// its loopback listener (the test plays the browser), keeps the token in a
// 0600 file of $MCPENGINE_TOKEN_DIR; engine list tools then uses it
// without any browser; engine logout removes it, after which list tools
// fails (exit 1) and says to run engine login.
func TestLoginListLogout(t *testing.T) {
	k := oauthtest.New(t, oauthtest.Config{PRMInHeader: true, RefreshTokens: true,
		Resource: demoserver.New(demoserver.Options{Name: "protected"}).StreamableHandler(demoserver.HTTPOptions{})})
	dir := filepath.Join(t.TempDir(), "tokens")
	env := []string{tokenDirEnv + "=" + dir}

	p := startListening(t, env, func(line string) (string, bool) {
		u := strings.TrimSpace(line)
		return u, strings.HasPrefix(u, k.AuthOrigin()+"/authorize?")
	}, "login", "--url", k.ServerURL(), "--no-browser", "--redirect-port", "0")
	browse(t, p.url)
	require.Equal(t, 0, p.exitCode(t), "login failed: %s", p.stderrText())
	require.Equal(t, 1, k.TokenRequests(oauthtest.GrantAuthorizationCode))

	files, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, files, 1, "one token file")
	info, err := files[0].Info()
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "the token file is the user's only")
	dirInfo, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), dirInfo.Mode().Perm())

	r := engineEnv(t, env, "", "list", "tools", "--url", k.ServerURL())
	require.Equal(t, 0, r.code, "list tools with the stored token: %s", r.stderr)
	assert.Regexp(t, `(?m)^echo +`, r.stdout)
	assert.Equal(t, 1, k.TokenRequests(oauthtest.GrantAuthorizationCode), "no new authorization")
	authReqs, _, _ := k.Snapshot()
	assert.Len(t, authReqs, 1, "no browser round trip")

	r = engineEnv(t, env, "", "logout", "--url", k.ServerURL())
	require.Equal(t, 0, r.code, "logout: %s", r.stderr)
	files, err = os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, files, "logout removed the token file")

	r = engineEnv(t, env, "", "list", "tools", "--url", k.ServerURL())
	assert.Equal(t, 1, r.code)
	line := oneLineError(t, r)
	assert.Contains(t, line, "login required")
	assert.Contains(t, line, "sign in first: engine login --url "+k.ServerURL())
	// The authorization URL login prints carries a state and a PKCE
	// challenge, as it must; nothing else may.
	loginOut := strings.Replace(p.stderrText(), p.url, "<the authorization URL>", 1)
	for _, out := range []string{r.stdout, r.stderr, loginOut} {
		if what, leaked := k.Leaked(out); leaked {
			t.Errorf("the CLI printed %s", what)
		}
	}
}
