package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// redirectAgent is the headless UserAgent: the authorization server
// answers the authorization request with a redirect at once (no user
// interaction), and the code is in that redirect's Location.
type redirectAgent struct {
	client      *http.Client
	redirectURI string
}

func newRedirectAgent(client *http.Client, redirectURI string) UserAgent {
	if client == nil {
		client = http.DefaultClient
	}
	c := *client
	// Never follow: the redirect goes to redirectURI, which may not even
	// listen; its query is the answer.
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &redirectAgent{client: &c, redirectURI: redirectURI}
}

func (r *redirectAgent) RedirectURI(context.Context) (string, error) { return r.redirectURI, nil }

func (r *redirectAgent) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, errors.New("oauth: redirect agent: bad authorization URL")
	}
	resp, err := r.client.Do(req)
	if err != nil {
		// Keep the cause, not the *url.Error's URL: it carries the state.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("oauth: redirect agent: requesting the authorization endpoint: %w", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode < 300 || resp.StatusCode > 399 || loc == "" {
		return nil, unauthorized(fmt.Sprintf("the authorization endpoint answered HTTP %d, not a redirect", resp.StatusCode), nil)
	}
	u, err := resp.Request.URL.Parse(loc)
	if err != nil {
		return nil, unauthorized("the authorization endpoint redirected to an unparsable Location", nil)
	}
	q := u.Query()
	if q.Get("code") == "" && q.Get("error") == "" {
		return nil, unauthorized("the authorization redirect carries neither code nor error", nil)
	}
	return q, nil
}
