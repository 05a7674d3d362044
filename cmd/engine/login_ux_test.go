package main

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/internal/oauthtest"
)

// A server that answers without a 401 needs no login: login says so (not
// "dynamic client registration failed (HTTP 404)") and stores nothing.
func TestLoginSaysTheServerAsksForNoSignIn(t *testing.T) {
	t.Parallel()
	h := demoserver.New(demoserver.Options{}).StreamableHandler(demoserver.HTTPOptions{})
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = h.Close(ctx)
		ts.Close()
	})
	dir := t.TempDir() + "/tokens"
	r := engineEnv(t, []string{tokenDirEnv + "=" + dir}, "", "login", "--url", ts.URL+"/mcp", "--no-browser")
	require.Equal(t, 0, r.code, "stderr: %s", r.stderr)
	assert.Contains(t, r.stdout, "this server asks for no sign-in")
	assert.NotContains(t, r.stdout+r.stderr, "registration")
	assert.NoDirExists(t, dir, "no token kept")
}

// The sign-in gets its own bound, minutes by default, not the seconds of
// --connect-timeout; when it passes, the error names the flag.
func TestLoginWaitsForTheSignInByItsOwnTimeout(t *testing.T) {
	t.Parallel()
	flag := newLoginCmd().Flags().Lookup("login-timeout")
	require.NotNil(t, flag, "login has --login-timeout")
	assert.Equal(t, "5m0s", flag.DefValue)

	k := oauthtest.New(t, oauthtest.Config{PRMInHeader: true,
		Resource: demoserver.New(demoserver.Options{Name: "protected"}).StreamableHandler(demoserver.HTTPOptions{})})
	env := []string{tokenDirEnv + "=" + t.TempDir() + "/tokens"}
	// Nobody signs in: the login ends at --login-timeout, although
	// --connect-timeout is shorter.
	p := startListening(t, env, func(line string) (string, bool) {
		u := strings.TrimSpace(line)
		return u, strings.HasPrefix(u, k.AuthOrigin()+"/authorize?")
	}, "login", "--url", k.ServerURL(), "--no-browser", "--connect-timeout", "2s", "--login-timeout", "4s")
	require.NotEmpty(t, p.url, "login printed the authorization URL")
	assert.Equal(t, 1, p.exitCode(t))
	assert.Contains(t, p.stderrText(), "no authorization within 4s (--login-timeout)")
}

// A token directory others may write is refused by every command that
// would read or keep a token in it, with the chmod that fixes it.
func TestATokenDirectoryOthersMayWriteIsRefused(t *testing.T) {
	t.Parallel()
	k := oauthtest.New(t, oauthtest.Config{PRMInHeader: true,
		Resource: demoserver.New(demoserver.Options{Name: "protected"}).StreamableHandler(demoserver.HTTPOptions{})})
	dir := t.TempDir() + "/tokens"
	require.NoError(t, os.Mkdir(dir, 0o700))
	require.NoError(t, os.Chmod(dir, 0o777))
	env := []string{tokenDirEnv + "=" + dir}

	r := engineEnv(t, env, "", "login", "--url", k.ServerURL(), "--no-browser")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "chmod 700 "+dir)
	r = engineEnv(t, env, "", "list", "tools", "--url", k.ServerURL())
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "chmod 700 "+dir)
	assert.Zero(t, k.TokenRequests(oauthtest.GrantAuthorizationCode), "no token obtained into it")
}
