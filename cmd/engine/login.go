package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/oauth"
)

// tokenDirEnv overrides where the CLI keeps OAuth tokens.
const tokenDirEnv = "MCPENGINE_TOKEN_DIR"

// tokenDir is where every command keeps OAuth tokens and client
// registrations: $MCPENGINE_TOKEN_DIR, else the user's config directory.
func tokenDir() string {
	if d := os.Getenv(tokenDirEnv); d != "" {
		return d
	}
	if d, err := os.UserConfigDir(); err == nil {
		return filepath.Join(d, "mcpengine", "oauth")
	}
	return filepath.Join(os.TempDir(), "mcpengine-oauth")
}

// defaultLoginTimeout is how long login waits for the user to sign in: a
// password, a second factor and a consent page take minutes, not the
// seconds a handshake gets.
const defaultLoginTimeout = 5 * time.Minute

func newLoginCmd() *cobra.Command {
	var (
		f         targetFlags
		port      int
		noBrowser bool
		timeout   time.Duration
	)
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Authorize to a server that requires OAuth and keep its token",
		Long: `Authorize to a remote MCP server that requires OAuth, as the MCP
authorization specification describes: discover the server's
authorization server, register this client (or use the configured
client id), open the browser on the authorization page and receive the
redirect on a loopback listener (127.0.0.1), then keep the token in the
token directory (` + "$" + tokenDirEnv + `, default the user's config directory,
files readable by the user only). Every other command then uses the
token and refreshes it.

A server in an mcpServers file may set "auth": {"oauth": {...}} (client id
and secret, scopes, redirect port, grant); a --url server uses dynamic
registration.

A server that answers without asking for authorization (no HTTP 401)
needs no login: login says so and stores nothing.`,
		Example: `  engine login --url https://mcp.example.com/mcp
  engine login --config mcp.json --server github --no-browser
  engine logout --url https://mcp.example.com/mcp`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runLogin(cmd, &f, port, noBrowser, timeout)
		},
	}
	f.register(cmd.Flags())
	cmd.Flags().DurationVar(&timeout, "login-timeout", defaultLoginTimeout, "how long to wait for the sign-in in the browser (--connect-timeout bounds the server's answers)")
	cmd.Flags().IntVar(&port, "redirect-port", 0, "loopback port of the redirect listener (default: the config's redirectPort, else any free port)")
	cmd.Flags().BoolVar(&noBrowser, "no-browser", false, "print the authorization URL instead of opening a browser")
	return cmd
}

func newLogoutCmd() *cobra.Command {
	var f targetFlags
	cmd := &cobra.Command{
		Use:   "logout",
		Short: "Forget the OAuth token kept for a server",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sc, eng, err := f.oauthTarget(cmd, nil)
			if err != nil {
				return err
			}
			defer closeEngine(eng)
			a, err := eng.Authorizer(sc)
			if err != nil {
				return err
			}
			if err := a.Logout(cmd.Context()); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "logged out")
			return nil
		},
	}
	f.register(cmd.Flags())
	return cmd
}

func runLogin(cmd *cobra.Command, f *targetFlags, port int, noBrowser bool, timeout time.Duration) error {
	errOut := cmd.ErrOrStderr()
	open := func(authURL string) error {
		fmt.Fprintf(errOut, "Open this page to authorize:\n\n  %s\n\n", authURL)
		if !noBrowser {
			if err := openBrowser(authURL); err != nil {
				fmt.Fprintf(errOut, "(could not start a browser: %v)\n", err)
			}
		}
		return nil
	}
	sc, eng, err := f.oauthTarget(cmd, func(cfg *oauth.Config) oauth.UserAgent {
		p := port
		if p == 0 {
			p = cfg.RedirectPort
		}
		return oauth.NewLoopbackAgent(p, open)
	})
	if err != nil {
		return err
	}
	defer closeEngine(eng)
	if asksNone, err := asksForNoSignIn(cmd.Context(), eng, sc, f.connectTimeout); err != nil {
		return err
	} else if asksNone {
		fmt.Fprintf(cmd.OutOrStdout(), "this server asks for no sign-in: it answered without requiring authorization, so every command works without engine login\n")
		return nil
	}
	a, err := eng.Authorizer(sc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
	defer cancel()
	if err := a.Login(ctx); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("login: no authorization within %v (--login-timeout)", timeout)
		}
		return fmt.Errorf("login: %w", err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "logged in; the token is kept in %s\n", tokenDir())
	return nil
}

// asksForNoSignIn connects to the server as it is configured but without
// OAuth: a server that completes the handshake without a 401 needs no
// login (running the OAuth discovery against it would fail with an HTTP
// 404 from a registration endpoint it does not have). Only a 401 (or 403)
// means a login is needed; an unreachable server is the caller's error,
// said now rather than after a browser page.
func asksForNoSignIn(ctx context.Context, eng *mcpengine.Engine, sc mcpengine.ServerConfig, within time.Duration) (bool, error) {
	plain := sc
	plain.Auth = nil
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	s, err := eng.Connect(ctx, mcpengine.SessionConfig{Name: "login-probe", Server: plain})
	if err == nil {
		closeCtx, cancelClose := context.WithTimeout(context.WithoutCancel(ctx), within)
		defer cancelClose()
		_ = s.Close(closeCtx)
		return true, nil
	}
	if errors.Is(err, mcpengine.ErrUnauthorized) {
		return false, nil
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return false, fmt.Errorf("login: the server did not answer within %v (--connect-timeout): %w", within, err)
	}
	return false, fmt.Errorf("login: %w", err)
}

// oauthTarget resolves a --url or --config server for login and logout:
// it must be a URL server, and gets the default OAuth settings when its
// configuration names none. agent, when set, is the engine's user agent.
func (f *targetFlags) oauthTarget(cmd *cobra.Command, agent func(*oauth.Config) oauth.UserAgent) (mcpengine.ServerConfig, *mcpengine.Engine, error) {
	if f.url == "" && f.configFile == "" {
		return mcpengine.ServerConfig{}, nil, usagef("give the server with --url or --config")
	}
	sc, _, err := f.target()
	if err != nil {
		return mcpengine.ServerConfig{}, nil, err
	}
	if sc.URL == "" {
		return mcpengine.ServerConfig{}, nil, usagef("OAuth applies to URL servers only")
	}
	if sc.Auth == nil {
		sc.Auth = &mcpengine.AuthConfig{}
	}
	if sc.Auth.OAuth == nil {
		if sc.Auth.Bearer != "" || sc.Auth.Basic != nil || sc.Auth.APIKey != nil {
			return mcpengine.ServerConfig{}, nil, usagef("the server is configured with another kind of auth, not oauth")
		}
		sc.Auth.OAuth = &oauth.Config{}
	}
	cfg := f.engineConfig(cmd.ErrOrStderr())
	if agent != nil {
		cfg.OAuth.UserAgent = agent(sc.Auth.OAuth)
	}
	return sc, mcpengine.New(cfg), nil
}

// openBrowser asks the desktop to open url.
func openBrowser(url string) error {
	var c *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		c = exec.Command("open", url)
	case "windows":
		c = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		c = exec.Command("xdg-open", url)
	}
	c.Stdout, c.Stderr = io.Discard, io.Discard
	if err := c.Start(); err != nil {
		return err
	}
	// Reaped in the background: the opener exits once it handed the URL on.
	go func() { _ = c.Wait() }()
	return nil
}
