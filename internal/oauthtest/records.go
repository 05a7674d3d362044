package oauthtest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// What the kit received, for assertions.

// TokenRequests counts the token endpoint's requests of a grant type
// (GrantAuthorizationCode, GrantRefreshToken, GrantClientCredentials,
// GrantJWTBearer); "" counts them all.
func (k *Kit) TokenRequests(grant string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := 0
	for _, r := range k.tokenRequests {
		if grant == "" || r.Form.Get("grant_type") == grant {
			n++
		}
	}
	return n
}

// Registrations counts dynamic client registrations.
func (k *Kit) Registrations() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.registrations)
}

// Snapshot returns copies of the authorization requests' queries, the
// token requests and the registration bodies received so far.
func (k *Kit) Snapshot() (authReqs []url.Values, tokenReqs []TokenRequest, regs []map[string]any) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.authRequests), slices.Clone(k.tokenRequests), slices.Clone(k.registrations)
}

// IDPRequests returns the identity provider's token requests.
func (k *Kit) IDPRequests() []TokenRequest {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.idpRequests)
}

// Hits returns the paths requested from the resource server and from the
// authorization server, in order.
func (k *Kit) Hits() (rs, as []string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.rsHits), slices.Clone(k.asHits)
}

// Served is how many requests passed the bearer check and reached the
// resource.
func (k *Kit) Served() int { return int(k.served.Load()) }

// Refused is how many requests carrying a token got 401 invalid_token.
func (k *Kit) Refused() int { return int(k.refused.Load()) }

// RefusedPosts is how many of Refused were POSTs (JSON-RPC messages, not
// GET streams).
func (k *Kit) RefusedPosts() int { return int(k.refusedPosts.Load()) }

// Secrets lists every secret the kit issued or received: access and
// refresh tokens, client secrets, authorization codes, PKCE verifiers and
// challenges, states, client assertions and ID tokens. None may appear in
// a log line, an error or a span.
func (k *Kit) Secrets() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]string, 0, len(k.secrets))
	for _, s := range k.secrets {
		out = append(out, s.value)
	}
	return out
}

// Leaked reports whether text contains SecretMarker or any of Secrets, and
// says what kind of secret (never the secret itself, so that a failure
// message can show it).
func (k *Kit) Leaked(text string) (kind string, leaked bool) {
	if strings.Contains(text, SecretMarker) {
		return "a value marked " + SecretMarker, true
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for i, s := range k.secrets {
		if strings.Contains(text, s.value) {
			return fmt.Sprintf("a %s (secret %d of %d)", s.kind, i+1, len(k.secrets)), true
		}
	}
	return "", false
}

// Call POSTs a JSON-RPC request for method to ServerURL through c, with a
// rewindable body as the engine sends it, and returns the status.
func (k *Kit) Call(c *http.Client, method string) (int, error) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q}`, method)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, k.ServerURL(), strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}
