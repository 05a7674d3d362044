package mcpengine_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/oauth"
)

// consoleAgent is an embedder's user agent: it shows the authorization
// URL and reads back the address the browser was redirected to (a
// device-style prompt). A web application's agent would redirect its user
// and wait for its own callback handler instead.
type consoleAgent struct{ redirectURI string }

func (c consoleAgent) RedirectURI(context.Context) (string, error) { return c.redirectURI, nil }

func (c consoleAgent) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	fmt.Fprintln(os.Stderr, "Open", authURL, "and paste the address you land on:")
	var landed string
	if _, err := fmt.Fscanln(os.Stdin, &landed); err != nil {
		return nil, err
	}
	u, err := url.Parse(landed)
	if err != nil {
		return nil, errors.New("not an address")
	}
	return u.Query(), nil
}

// An engine authorizes to servers configured with "auth": {"oauth": ...}
// through one Authorizer per server, shared by all their sessions. The
// embedder chooses where tokens live (Store) and how a user signs in
// (UserAgent); Authorizer lets it log in ahead of the first session.
func ExampleOAuthOptions() {
	dir, _ := os.UserConfigDir()
	eng := mcpengine.New(mcpengine.Config{OAuth: mcpengine.OAuthOptions{
		Store:     oauth.NewFileStore(filepath.Join(dir, "myapp", "oauth")),
		UserAgent: consoleAgent{redirectURI: "https://myapp.example.com/oauth/callback"},
	}})
	defer eng.Close(context.Background())

	server := mcpengine.ServerConfig{
		URL:  "https://mcp.example.com/mcp",
		Auth: &mcpengine.AuthConfig{OAuth: &oauth.Config{Scopes: []string{"files:read"}}},
	}
	a, err := eng.Authorizer(server)
	if err != nil {
		fmt.Println(err)
		return
	}
	same, _ := eng.Authorizer(server)
	fmt.Println("one authorizer per server:", a == same)
	// a.Login(ctx) would run the grant now; otherwise the first session's
	// first request does, and every other session waits for it.
	// Output: one authorizer per server: true
}

// webAgent is a web application's user agent: it is told whose sign-in it
// runs (oauth.SubjectFromContext) and sends that user's browser to the
// authorization URL, then waits for its own callback handler.
type webAgent struct{ redirectUser func(user, authURL string) }

func (w webAgent) RedirectURI(context.Context) (string, error) {
	return "https://myapp.example.com/oauth/callback", nil
}

func (w webAgent) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	w.redirectUser(oauth.SubjectFromContext(ctx), authURL)
	return nil, errors.New("this sketch has no callback handler")
}

// A platform acting for its users names the user in each session's
// Subject: the sessions of one server and one user share that user's
// token (one sign-in, one refresh at a time), stored under the user in
// the embedder's TokenStore, and no other user's session sees it. Logging
// one user out touches no other.
func ExampleEngine_SubjectAuthorizer() {
	eng := mcpengine.New(mcpengine.Config{OAuth: mcpengine.OAuthOptions{
		UserAgent: webAgent{redirectUser: func(user, authURL string) { /* push authURL to user's browser */ }},
	}})
	defer eng.Close(context.Background())

	server := mcpengine.ServerConfig{URL: "https://mcp.example.com/mcp", Auth: &mcpengine.AuthConfig{OAuth: &oauth.Config{}}}
	// eng.Connect(ctx, mcpengine.SessionConfig{Name: "alice-1", Server: server, Subject: "alice"})
	alice, _ := eng.SubjectAuthorizer(server, "alice")
	bob, _ := eng.SubjectAuthorizer(server, "bob")
	again, _ := eng.SubjectAuthorizer(server, "alice")
	fmt.Println("one authorizer per user:", alice == again, alice != bob)
	fmt.Println("alice logs out:", alice.Logout(context.Background()))
	// Output:
	// one authorizer per user: true true
	// alice logs out: <nil>
}
