package gateway

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/mcpengine/mcpengine/internal/httpserve"
	"github.com/mcpengine/mcpengine/messages"
)

// anonymousName is the client name of every request when no clients are
// configured (authentication off).
const anonymousName = "anonymous"

// minTokenLen keeps guessable tokens out: 16 characters of a random
// base64 or hex string are 64 bits or more.
const minTokenLen = 16

// principal is an authenticated gateway client: its name and the access
// it has to each server.
type principal struct {
	name   string
	hash   [sha256.Size]byte // of the token; zero for anonymous
	access map[string]*access
}

// authenticator maps bearer tokens to principals.
type authenticator struct {
	clients   []*principal // empty: authentication off
	anonymous *principal
}

// authError is a refused request: its HTTP status and why.
type authError struct {
	status int
	msg    string
}

// authenticate identifies the client of r. Tokens are compared as SHA-256
// digests in constant time, and every configured client is compared, so
// neither a token's length nor its position in the configuration shows in
// the response time.
func (a *authenticator) authenticate(r *http.Request) (*principal, *authError) {
	if len(a.clients) == 0 {
		if !httpserve.LoopbackPeer(r) {
			return nil, &authError{http.StatusForbidden, "only loopback clients may connect to a gateway without client tokens"}
		}
		return a.anonymous, nil
	}
	token, ok := bearerToken(r)
	if !ok {
		return nil, &authError{http.StatusUnauthorized, "missing bearer token"}
	}
	h := sha256.Sum256([]byte(token))
	var found *principal
	for _, p := range a.clients {
		if subtle.ConstantTimeCompare(h[:], p.hash[:]) == 1 {
			found = p
		}
	}
	if found == nil {
		return nil, &authError{http.StatusUnauthorized, "unknown bearer token"}
	}
	return found, nil
}

// bearerToken extracts the token of an "Authorization: Bearer" header.
func bearerToken(r *http.Request) (string, bool) {
	v := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(v, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// writeAuthError answers a refused request and closes its connection: it
// is answered before the body is read, and net/http would otherwise read
// the rest of the body first, however slowly it comes. A 401 carries the
// challenge RFC 6750 asks for.
func writeAuthError(w http.ResponseWriter, r *http.Request, e *authError) {
	if e.status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcpengine-gateway"`)
	}
	httpserve.Refuse(w, r, e.status, messages.CodeInvalidRequest, e.msg)
}
