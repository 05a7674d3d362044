package mcpengine

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/oauth"
	"github.com/mcpengine/mcpengine/transport/httpx"
)

// OAuthOptions say how an engine authorizes to servers whose configuration
// has "auth": {"oauth": ...}.
type OAuthOptions struct {
	// Store keeps tokens and client registrations; nil keeps them in
	// memory for the engine's lifetime (oauth.NewFileStore keeps them
	// across processes).
	Store oauth.TokenStore
	// UserAgent runs the interactive step of the authorization code grant
	// (a browser, a web app's redirect). nil: a server that needs one
	// fails Connect with ErrUnauthorized unless the store holds a token
	// (from `engine login`, or an earlier process) that can be refreshed.
	UserAgent oauth.UserAgent
}

// oauthKey names one authorization context: a server, the settings the
// engine authorizes to it with, and the subject (user) it acts for.
// Sessions that share a key share one Authorizer, hence one discovery, one
// login and one refresh at a time; another subject's sessions never see
// its token.
type oauthKey struct {
	url      string
	settings string // the oauth.Config, encoded
	subject  string // SessionConfig.Subject; "" for none
}

// oauthEntry is one shared Authorizer and the HTTP client that sends
// requests through it.
type oauthEntry struct {
	auth   *oauth.Authorizer
	client *http.Client
}

// Authorizer returns the Authorizer the engine uses for a server configured
// with OAuth, the one every session of that server without a Subject
// shares: embedders use it to log in ahead of time (Login), read the token
// or log out.
func (e *Engine) Authorizer(s ServerConfig) (*oauth.Authorizer, error) {
	return e.SubjectAuthorizer(s, "")
}

// SubjectAuthorizer returns the Authorizer of a server for one subject
// (SessionConfig.Subject), the one every session of that server and
// subject shares. Its Logout forgets that subject's token only; other
// subjects' sessions and records are untouched.
func (e *Engine) SubjectAuthorizer(s ServerConfig, subject string) (*oauth.Authorizer, error) {
	if s.URL == "" || s.Auth == nil || s.Auth.OAuth == nil {
		return nil, fmt.Errorf("mcpengine: server config has no url with auth.oauth")
	}
	u, err := url.Parse(s.URL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("mcpengine: server URL %s is not an absolute URL", httpx.RedactURL(s.URL))
	}
	base, err := e.httpClientFor(u, s)
	if err != nil {
		return nil, err
	}
	entry, err := e.oauthEntryFor(s.URL, *s.Auth.OAuth, subject, base)
	if err != nil {
		return nil, err
	}
	return entry.auth, nil
}

// oauthClientFor returns the client whose requests carry the server's
// access token for subject, built on first use and shared by the sessions
// of that server and subject.
func (e *Engine) oauthClientFor(serverURL string, cfg oauth.Config, subject string, base *http.Client) (*http.Client, error) {
	entry, err := e.oauthEntryFor(serverURL, cfg, subject, base)
	if err != nil {
		return nil, err
	}
	return entry.client, nil
}

func (e *Engine) oauthEntryFor(serverURL string, cfg oauth.Config, subject string, base *http.Client) (*oauthEntry, error) {
	settings, err := messages.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("mcpengine: encoding oauth settings: %w", err)
	}
	key := oauthKey{url: serverURL, settings: string(settings), subject: subject}
	e.httpMu.Lock()
	defer e.httpMu.Unlock()
	if entry, ok := e.authorizers[key]; ok {
		return entry, nil
	}
	store := e.cfg.OAuth.Store
	if store == nil {
		if e.oauthStore == nil {
			e.oauthStore = oauth.NewMemoryStore()
		}
		store = e.oauthStore
	}
	auth, err := oauth.New(serverURL, cfg, oauth.Options{
		HTTPClient: base,
		Store:      store,
		UserAgent:  e.cfg.OAuth.UserAgent,
		Logger:     e.cfg.Logger,
		Subject:    subject,
	})
	if err != nil {
		return nil, err
	}
	entry := &oauthEntry{auth: auth, client: &http.Client{
		Transport:     auth.Transport(base.Transport),
		CheckRedirect: base.CheckRedirect,
		Jar:           base.Jar,
		Timeout:       base.Timeout,
	}}
	if e.authorizers == nil {
		e.authorizers = map[oauthKey]*oauthEntry{}
	}
	e.authorizers[key] = entry
	return entry, nil
}
