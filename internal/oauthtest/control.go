package oauthtest

import (
	"net/http"
	"sync"
)

// Run-time knobs: what a test changes while clients are connected.

// SetRejectAllTokens makes the resource server answer every token, even a
// fresh one, with 401 invalid_token (RejectedDescription): a failure no
// authorization cures.
func (k *Kit) SetRejectAllTokens(on bool) { k.rejectAll.Store(on) }

// RevokeAccessTokens forgets every access token issued so far, as an
// authorization server revoking them (or their expiry) would: the next
// request carrying one gets 401 invalid_token and the client must
// refresh. Refresh tokens stay valid. It returns how many were revoked.
func (k *Kit) RevokeAccessTokens() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := len(k.tokens)
	clear(k.tokens)
	return n
}

// RevokeAccessToken forgets one access token, as an authorization server
// revoking one user's grant would; other tokens stay valid. It reports
// whether tok was valid.
func (k *Kit) RevokeAccessToken(tok string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.tokens[tok]
	delete(k.tokens, tok)
	return ok
}

// AddAccessToken makes tok a valid access token with scopes, as if the
// kit had issued it (a token a previous process stored).
func (k *Kit) AddAccessToken(tok string, scopes ...string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.tokens[tok] = scopes
	k.noteSecretsLocked("access token", tok)
}

// AddRefreshToken makes rt a valid refresh token for scopes.
func (k *Kit) AddRefreshToken(rt string, scopes ...string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.refresh[rt] = scopes
	k.noteSecretsLocked("refresh token", rt)
}

// RevokeRefreshToken makes rt unknown: a refresh with it is refused
// (invalid_grant).
func (k *Kit) RevokeRefreshToken(rt string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.refresh, rt)
}

// SetMetadataIssuer makes the authorization server metadata name issuer
// instead of the kit's own (RFC 8414 §3.3 mismatch tests).
func (k *Kit) SetMetadataIssuer(issuer string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.metadataIssuer = issuer
}

// refreshHold keeps refresh grants waiting until the resource server has
// refused a number of POSTs.
type refreshHold struct {
	until int64 // the RefusedPosts count that opens it
	open  chan struct{}
	once  sync.Once
}

// HoldRefreshes makes the refresh_token grant wait until the resource
// server has refused n more POSTs (401 invalid_token) than it had when
// called: a test that revokes the token and then starts n calls knows,
// when the refresh is answered, that all n were in flight with the old
// token and none was sent after the refresh. Only POSTs count: a GET
// stream the client reopens meanwhile is not a call. The client must be
// quiet when the hold starts (a notification still in flight is a
// barrier the calls wait behind, and would wait for the refresh too). A
// held refresh whose client gives up gets 503 temporarily_unavailable.
func (k *Kit) HoldRefreshes(n int) {
	h := &refreshHold{until: k.refusedPosts.Load() + int64(n), open: make(chan struct{})}
	k.mu.Lock()
	k.hold = h
	k.mu.Unlock()
	k.checkHold()
}

func (k *Kit) noteRefused(post bool) {
	k.refused.Add(1)
	if post {
		k.refusedPosts.Add(1)
		k.checkHold()
	}
}

func (k *Kit) checkHold() {
	k.mu.Lock()
	h := k.hold
	k.mu.Unlock()
	if h != nil && k.refusedPosts.Load() >= h.until {
		h.once.Do(func() { close(h.open) })
	}
}

// waitForHold waits for the refresh hold, if any, to open; false if the
// client gave up first.
func (k *Kit) waitForHold(r *http.Request) bool {
	k.mu.Lock()
	h := k.hold
	k.mu.Unlock()
	if h == nil {
		return true
	}
	select {
	case <-h.open:
		return true
	case <-r.Context().Done():
		return false
	}
}

// MoveTo moves the resource to to's authorization server, as an
// operator migrating it would (SEP-2352): from now on its protected
// resource metadata names to's issuer, and it accepts only the access
// tokens to issued; a token of its own authorization server gets 401
// invalid_token with MovedDescription.
func (k *Kit) MoveTo(to *Kit) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.movedTo = to
}

// authServer is the kit whose authorization server the resource names.
func (k *Kit) authServer() *Kit {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.movedTo != nil {
		return k.movedTo
	}
	return k
}

// lookupToken returns the scopes of an access token the resource
// accepts; moved says it is a valid token of the authorization server
// the resource left.
func (k *Kit) lookupToken(tok string) (scopes []string, valid, moved bool) {
	as := k.authServer()
	as.mu.Lock()
	scopes, valid = as.tokens[tok]
	as.mu.Unlock()
	if valid || as == k {
		return scopes, valid, false
	}
	k.mu.Lock()
	_, moved = k.tokens[tok]
	k.mu.Unlock()
	return nil, false, moved
}
