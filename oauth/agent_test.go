package oauth

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoopbackAgent: the agent listens on 127.0.0.1 only while it waits,
// answers the redirect with a page, returns its query, and closes.
func TestLoopbackAgent(t *testing.T) {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	browser := &http.Client{Transport: tr}
	var page string
	var opened string
	agent := NewLoopbackAgent(0, func(authURL string) error {
		opened = authURL
		// The "browser": the user approved, the AS redirects back.
		u, err := url.Parse(authURL)
		if err != nil {
			return err
		}
		redirect := u.Query().Get("redirect_uri") + "?code=the-code&state=" + u.Query().Get("state")
		resp, err := browser.Get(redirect)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		page = string(b)
		return nil
	})
	ctx := context.Background()
	uri, err := agent.RedirectURI(ctx)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(uri, "http://127.0.0.1:"), uri)
	require.True(t, strings.HasSuffix(uri, "/callback"), uri)
	again, err := agent.RedirectURI(ctx)
	require.NoError(t, err)
	assert.Equal(t, uri, again, "the port stays the same")

	authURL := "https://auth.example.com/authorize?" + url.Values{"redirect_uri": {uri}, "state": {"st"}}.Encode()
	q, err := agent.Authorize(ctx, authURL)
	require.NoError(t, err)
	assert.Equal(t, authURL, opened)
	assert.Equal(t, "the-code", q.Get("code"))
	assert.Equal(t, "st", q.Get("state"))
	assert.Contains(t, page, "close this window")

	// The listener is closed once Authorize returned.
	u, _ := url.Parse(uri)
	_, err = net.Dial("tcp", u.Host)
	assert.Error(t, err, "nothing listens after Authorize")
}

func TestLoopbackAgentContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	agent := NewLoopbackAgent(0, func(string) error {
		cancel() // the user never comes back; the caller gives up
		return nil
	})
	_, err := agent.Authorize(ctx, "https://auth.example.com/authorize")
	require.ErrorIs(t, err, context.Canceled)
}

func TestRedirectAgent(t *testing.T) {
	k := newKit(t, kitConfig{})
	agent := NewRedirectAgent(k.Client(), testRedirectURI)
	_, err := agent.Authorize(context.Background(), k.AuthOrigin()+"/nowhere")
	require.ErrorIs(t, err, ErrUnauthorized, "a non-redirect answer")
}

// TestLoopbackAgentEndToEnd: an interactive login as the CLI runs it; the
// "browser" follows the authorization server's redirect to the loopback
// listener.
func TestLoopbackAgentEndToEnd(t *testing.T) {
	k := newKit(t, kitConfig{})
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	browser := &http.Client{Transport: tr}
	agent := NewLoopbackAgent(0, func(authURL string) error {
		resp, err := browser.Get(authURL)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("callback answered %d", resp.StatusCode)
		}
		return nil
	})
	a := k.authorizer(Config{}, Options{UserAgent: agent})
	require.NoError(t, a.Login(context.Background()))
	status, err := k.Call(k.mcpClient(a), "tools/list")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, status)
	_, _, regs := k.Snapshot()
	require.Len(t, regs, 1)
	uris, _ := regs[0]["redirect_uris"].([]any)
	require.Len(t, uris, 1)
	assert.True(t, strings.HasPrefix(uris[0].(string), "http://127.0.0.1:"), "registered the loopback redirect URI")
}
