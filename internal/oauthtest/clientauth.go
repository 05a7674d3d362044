package oauthtest

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// authenticateClient checks the token request's client authentication and
// says which method it used.
func (k *Kit) authenticateClient(r *http.Request) (clientID, method string, ok bool) {
	form := r.PostForm
	if id, secret, basic := r.BasicAuth(); basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		k.mu.Lock()
		k.noteSecretsLocked("client secret", secret)
		k.mu.Unlock()
		return id, AuthSecretBasic, k.secretOK(id, secret)
	}
	if a := form.Get("client_assertion"); a != "" {
		if form.Get("client_assertion_type") != clientAssertionType {
			return "", AuthPrivateKeyJWT, false
		}
		var claims jwt.RegisteredClaims
		_, err := jwt.ParseWithClaims(a, &claims, func(tk *jwt.Token) (any, error) {
			key := k.cfg.JWTClients[form.Get("client_id")]
			if key == nil {
				iss, _ := tk.Claims.GetIssuer()
				key = k.cfg.JWTClients[iss]
			}
			if key == nil {
				return nil, fmt.Errorf("unknown client")
			}
			return key, nil
		}, jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(k.Issuer()), jwt.WithExpirationRequired(), jwt.WithIssuedAt())
		if err != nil || claims.Issuer != claims.Subject {
			return claims.Issuer, AuthPrivateKeyJWT, false
		}
		return claims.Issuer, AuthPrivateKeyJWT, true
	}
	id := form.Get("client_id")
	if s := form.Get("client_secret"); s != "" {
		return id, AuthSecretPost, k.secretOK(id, s)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	c, dyn := k.clients[id]
	public := (dyn && c.secret == "") || (k.cfg.CIMD && strings.HasPrefix(id, "https://"))
	return id, AuthNone, public
}

func (k *Kit) secretOK(id, secret string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if s, ok := k.cfg.PreClients[id]; ok {
		return s == secret
	}
	c, ok := k.clients[id]
	return ok && c.secret != "" && c.secret == secret
}
