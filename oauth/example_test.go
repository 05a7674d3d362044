package oauth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"

	"github.com/mcpengine/mcpengine/oauth"
)

// An engine wraps the HTTP client of one MCP server with its Authorizer:
// every session of that server shares the token, its refreshes and its
// one interactive login.
func Example() {
	dir, _ := os.UserConfigDir()
	a, err := oauth.New("https://mcp.example.com/mcp", oauth.Config{Scopes: []string{"files:read"}}, oauth.Options{
		Store: oauth.NewFileStore(filepath.Join(dir, "mcpengine", "oauth")),
		UserAgent: oauth.NewLoopbackAgent(0, func(authURL string) error {
			_, err := fmt.Fprintln(os.Stderr, "Open this URL to log in:", authURL)
			return err
		}),
	})
	if err != nil {
		panic(err)
	}
	client := &http.Client{Transport: a.Transport(http.DefaultTransport)}
	_ = client // sessions send their requests with it
}

// webAgent is an embedder's UserAgent: a web application sends its user
// to the authorization URL and hands the redirect's query back when its
// own callback handler receives it.
type webAgent struct {
	callbackURL string
	redirect    func(authURL string) // sends the browser there
	callbacks   <-chan url.Values    // filled by the app's callback handler
}

func (w *webAgent) RedirectURI(context.Context) (string, error) { return w.callbackURL, nil }

func (w *webAgent) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	w.redirect(authURL)
	select {
	case q := <-w.callbacks:
		return q, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// An embedder plugs its own user agent and token store (any TokenStore:
// a database table keyed by the key it is given).
func Example_embedder() {
	callbacks := make(chan url.Values, 1)
	agent := &webAgent{callbackURL: "https://app.example.com/oauth/callback", redirect: func(string) {}, callbacks: callbacks}
	_, err := oauth.New("https://mcp.example.com/mcp", oauth.Config{ClientMetadataURL: "https://app.example.com/client.json"},
		oauth.Options{UserAgent: agent, Store: oauth.NewMemoryStore()})
	fmt.Println(err)
	// Output: <nil>
}
