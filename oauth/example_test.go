package oauth_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"

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

// rowStore is an embedder's TokenStore: one row per key in its own
// database (a map here). A Record holds tokens and a client secret: store
// it encrypted, readable by this service only.
type rowStore struct {
	mu   sync.Mutex
	rows map[string][]byte
}

func (s *rowStore) Load(_ context.Context, key string) (*oauth.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.rows[key]
	if !ok {
		return nil, nil // absent: not an error
	}
	var rec oauth.Record
	return &rec, json.Unmarshal(row, &rec)
}

func (s *rowStore) Save(_ context.Context, key string, rec *oauth.Record) error {
	row, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows[key] = row
	return nil
}

func (s *rowStore) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.rows, key)
	return nil
}

// A TokenStore of the embedder's own: the Authorizer loads the record of
// its server once, saves every new token (after a login, a refresh or a
// step-up) and deletes it on Logout. An Authorizer acting for a user
// (Options.Subject) has a key of its own, so each user's record is a row
// of its own, and Logout deletes that user's row only.
func Example_tokenStore() {
	store := &rowStore{rows: map[string][]byte{}}
	a, err := oauth.New("https://mcp.example.com/mcp", oauth.Config{Grant: oauth.GrantClientCredentials,
		ClientID: "reporting-service", ClientSecret: os.Getenv("MCP_CLIENT_SECRET")},
		oauth.Options{Store: store})
	if err != nil {
		panic(err)
	}
	fmt.Println(a.Logout(context.Background()), len(store.rows))
	// Output: <nil> 0
}
