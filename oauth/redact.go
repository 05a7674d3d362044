package oauth

import (
	"fmt"
	"log/slog"
	"slices"
	"time"

	"golang.org/x/oauth2"
)

// The String, GoString and LogValue methods below make every way of
// printing a Record or a Config (%v, %+v, %#v, slog) show which secrets
// are set, never their values.

const redacted = "[redacted]"

func secretState(s string) string {
	if s == "" {
		return ""
	}
	return redacted
}

func tokenSummary(t *oauth2.Token) string {
	if t == nil {
		return "<nil>"
	}
	exp := "none"
	if !t.Expiry.IsZero() {
		exp = t.Expiry.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("{AccessToken:%s RefreshToken:%s Expiry:%s}", secretState(t.AccessToken), secretState(t.RefreshToken), exp)
}

// String prints the record with its token and secret redacted.
func (r Record) String() string {
	return fmt.Sprintf("oauth.Record{Resource:%q Issuer:%q ClientID:%q ClientSecret:%q Scopes:%q Token:%s TokenEndpointAuthMethod:%q RedirectURI:%q}",
		r.Resource, r.Issuer, r.ClientID, secretState(r.ClientSecret), r.Scopes, tokenSummary(r.Token), r.TokenEndpointAuthMethod, r.RedirectURI)
}

// GoString is String, so that %#v redacts too.
func (r Record) GoString() string { return r.String() }

// LogValue logs the record with its token and secret redacted.
func (r Record) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("resource", r.Resource),
		slog.String("issuer", r.Issuer),
		slog.String("client_id", r.ClientID),
		slog.String("client_secret", secretState(r.ClientSecret)),
		slog.Any("scopes", r.Scopes),
		slog.String("token", tokenSummary(r.Token)),
	)
}

// String prints the configuration with its secrets redacted.
func (c Config) String() string {
	return fmt.Sprintf("oauth.Config{ClientID:%q ClientSecret:%q ClientMetadataURL:%q ClientName:%q TokenEndpointAuthMethod:%q PrivateKeyPEM:%q SigningAlgorithm:%q KeyID:%q Scopes:%q Grant:%q IDP:%v RedirectPort:%d MaxStepUps:%d}",
		c.ClientID, secretState(c.ClientSecret), c.ClientMetadataURL, c.ClientName, c.TokenEndpointAuthMethod, secretState(c.PrivateKeyPEM),
		c.SigningAlgorithm, c.KeyID, c.Scopes, c.Grant, c.IDP, c.RedirectPort, c.MaxStepUps)
}

// GoString is String, so that %#v redacts too.
func (c Config) GoString() string { return c.String() }

// LogValue logs the configuration with its secrets redacted.
func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }

// String prints the identity provider configuration with its secret and
// ID token redacted.
func (c IDPConfig) String() string {
	return fmt.Sprintf("oauth.IDPConfig{Issuer:%q TokenEndpoint:%q ClientID:%q ClientSecret:%q IDToken:%q}",
		c.Issuer, c.TokenEndpoint, c.ClientID, secretState(c.ClientSecret), secretState(c.IDToken))
}

// GoString is String, so that %#v redacts too.
func (c IDPConfig) GoString() string { return c.String() }

// LogValue logs the configuration with its secrets redacted.
func (c IDPConfig) LogValue() slog.Value { return slog.StringValue(c.String()) }

// clone deep-copies a record (nil stays nil).
func (r *Record) clone() *Record {
	if r == nil {
		return nil
	}
	c := *r
	c.Scopes = slices.Clone(r.Scopes)
	if r.Token != nil {
		t := *r.Token
		c.Token = &t
	}
	return &c
}
