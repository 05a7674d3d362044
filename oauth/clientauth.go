package oauth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/oauth2"
)

// Token endpoint client authentication methods (RFC 7591 §2, RFC 7523).
const (
	authNone          = "none"
	authSecretBasic   = "client_secret_basic"
	authSecretPost    = "client_secret_post"
	authPrivateKeyJWT = "private_key_jwt"

	clientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
	// assertionLifetime is short: an assertion is used once, at once.
	assertionLifetime = 5 * time.Minute
)

// clientIdentity is who the client is at one authorization server and
// how it authenticates at its token endpoint.
type clientIdentity struct {
	ID     string
	Secret string
	Method string
	// key signs private_key_jwt assertions.
	key *assertionKey
}

// assertionKey is a parsed private key with the JWS algorithm to use.
type assertionKey struct {
	method jwt.SigningMethod
	key    any
	kid    string
}

// chooseAuthMethod picks the token endpoint auth method of a client whose
// method was not configured: a key means private_key_jwt; a secret means
// client_secret_basic unless the server lists only client_secret_post
// (RFC 8414's default list is client_secret_basic alone); neither means a
// public client (none).
func chooseAuthMethod(configured string, supported []string, haveSecret, haveKey bool) string {
	switch {
	case configured != "":
		return configured
	case haveKey:
		return authPrivateKeyJWT
	case haveSecret:
		if len(supported) == 0 || slices.Contains(supported, authSecretBasic) || !slices.Contains(supported, authSecretPost) {
			return authSecretBasic
		}
		return authSecretPost
	default:
		return authNone
	}
}

// registrationAuthMethod is the method asked for in dynamic registration:
// the configured one, else the first of basic, post, none the server
// lists (client_secret_basic when it lists none, RFC 7591's default).
func registrationAuthMethod(configured string, supported []string) string {
	if configured != "" {
		return configured
	}
	if len(supported) == 0 {
		return authSecretBasic
	}
	for _, m := range []string{authSecretBasic, authSecretPost, authNone} {
		if slices.Contains(supported, m) {
			return m
		}
	}
	return authNone
}

// tokenRequestAuth returns how x/oauth2 must send the client's
// credentials (header or body, with which secret) and the extra body
// parameters (a private_key_jwt assertion for audience).
func (c clientIdentity) tokenRequestAuth(audience string) (style oauth2.AuthStyle, secret string, extra url.Values, err error) {
	switch c.Method {
	case authSecretBasic:
		return oauth2.AuthStyleInHeader, c.Secret, nil, nil
	case authSecretPost:
		return oauth2.AuthStyleInParams, c.Secret, nil, nil
	case authNone, "":
		// x/oauth2 sends client_id alone in the body when the secret is
		// empty.
		return oauth2.AuthStyleInParams, "", nil, nil
	case authPrivateKeyJWT:
		if c.key == nil {
			return 0, "", nil, unauthorized("private_key_jwt needs a private key (privateKeyPem)", nil)
		}
		assertion, err := c.key.sign(c.ID, audience)
		if err != nil {
			return 0, "", nil, err
		}
		return oauth2.AuthStyleInParams, "", url.Values{
			"client_assertion_type": {clientAssertionType},
			"client_assertion":      {assertion},
		}, nil
	default:
		return 0, "", nil, unauthorized(fmt.Sprintf("unsupported token endpoint auth method %q", c.Method), nil)
	}
}

// sign makes an RFC 7523 §2.2 client assertion: iss and sub are the
// client id, aud the authorization server's issuer identifier (what
// draft-ietf-oauth-rfc7523bis asks for and what servers accept).
func (k *assertionKey) sign(clientID, audience string) (string, error) {
	now := time.Now()
	claims := jwt.RegisteredClaims{
		Issuer:    clientID,
		Subject:   clientID,
		Audience:  jwt.ClaimStrings{audience},
		IssuedAt:  jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now.Add(-time.Minute)),
		ExpiresAt: jwt.NewNumericDate(now.Add(assertionLifetime)),
		ID:        randomString(16),
	}
	t := jwt.NewWithClaims(k.method, claims)
	if k.kid != "" {
		t.Header["kid"] = k.kid
	}
	s, err := t.SignedString(k.key)
	if err != nil {
		return "", fmt.Errorf("oauth: signing the client assertion: %w", err)
	}
	return s, nil
}

// parseAssertionKey reads a PEM private key (PKCS#8, SEC 1 EC or PKCS#1
// RSA) and the algorithm to sign with (alg, else the key type's usual
// one). Errors never quote the key.
func parseAssertionKey(pemText, alg, kid string) (*assertionKey, error) {
	block, _ := pem.Decode([]byte(pemText))
	if block == nil {
		return nil, errors.New("oauth: privateKeyPem holds no PEM block")
	}
	var key any
	var err error
	if key, err = x509.ParsePKCS8PrivateKey(block.Bytes); err != nil {
		if key, err = x509.ParseECPrivateKey(block.Bytes); err != nil {
			if key, err = x509.ParsePKCS1PrivateKey(block.Bytes); err != nil {
				return nil, errors.New("oauth: privateKeyPem is not a PKCS#8, EC or RSA private key")
			}
		}
	}
	if alg == "" {
		alg = defaultAlgorithm(key)
	}
	method := jwt.GetSigningMethod(alg)
	if method == nil || alg == "none" {
		return nil, fmt.Errorf("oauth: unsupported signing algorithm %q", alg)
	}
	return &assertionKey{method: method, key: key, kid: kid}, nil
}

func defaultAlgorithm(key any) string {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P384():
			return "ES384"
		case elliptic.P521():
			return "ES512"
		}
		return "ES256"
	case ed25519.PrivateKey:
		return "EdDSA"
	case *rsa.PrivateKey:
		return "RS256"
	}
	return ""
}
