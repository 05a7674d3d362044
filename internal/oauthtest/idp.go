package oauthtest

import (
	"crypto/ecdsa"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// StartIDP serves an identity provider for the cross-app access grant:
// an RFC 8693 token endpoint at IDPURL()+"/token" that exchanges idToken,
// presented by clientID, for an ID-JAG signed with key, which the kit's
// authorization server then accepts in a JWT bearer grant.
func (k *Kit) StartIDP(key *ecdsa.PrivateKey, clientID, idToken string) {
	k.idpKey = key
	k.idp = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/token" || r.ParseForm() != nil {
			http.NotFound(w, r)
			return
		}
		f := r.PostForm
		k.mu.Lock()
		k.idpRequests = append(k.idpRequests, TokenRequest{Form: f, ClientID: f.Get("client_id")})
		k.mu.Unlock()
		if f.Get("grant_type") != GrantTokenExchange || f.Get("subject_token") != idToken ||
			f.Get("subject_token_type") != TokenTypeIDToken || f.Get("requested_token_type") != TokenTypeIDJAG ||
			f.Get("audience") != k.Issuer() || f.Get("resource") == "" || f.Get("client_id") != clientID {
			WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
			return
		}
		t := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{
			"iss": k.idp.URL, "sub": "user@example.com", "aud": f.Get("audience"), "resource": f.Get("resource"),
			"client_id": "xaa-client", "exp": time.Now().Add(5 * time.Minute).Unix(), "iat": time.Now().Unix(),
		})
		t.Header["typ"] = "oauth-id-jag+jwt"
		jag, err := t.SignedString(key)
		if err != nil {
			WriteJSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error"})
			return
		}
		k.idpJAGs.Add(1)
		WriteJSON(w, http.StatusOK, map[string]string{"access_token": jag, "issued_token_type": TokenTypeIDJAG, "token_type": "N_A"})
	}))
	k.idp.Start() // after k.idp is set: the handler reads its URL
}

// IDPURL is the identity provider's origin (after StartIDP).
func (k *Kit) IDPURL() string { return k.idp.URL }

// IDPJAGs is how many ID-JAGs the identity provider issued.
func (k *Kit) IDPJAGs() int { return int(k.idpJAGs.Load()) }

func (k *Kit) verifyJAG(assertion, clientID, resource string) bool {
	if k.idpKey == nil {
		return false
	}
	claims := jwt.MapClaims{}
	tk, err := jwt.ParseWithClaims(assertion, claims, func(*jwt.Token) (any, error) { return &k.idpKey.PublicKey, nil },
		jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(k.Issuer()))
	if err != nil || tk.Header["typ"] != "oauth-id-jag+jwt" {
		return false
	}
	return claims["client_id"] == clientID && claims["resource"] == resource
}
