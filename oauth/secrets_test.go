package oauth

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/mcpengine/mcpengine/internal/oauthtest"
)

// secretsSeen lists what the test servers handed out or received that
// must never be printed: every token and secret the kit issues contains
// oauthtest.SecretMarker; codes, verifiers, challenges and states it
// received are listed by the kit.
func secretsSeen(k *kit) []string {
	return append([]string{oauthtest.SecretMarker}, k.Secrets()...)
}

// assertNoSecret fails if text contains one of secrets; the message names
// which one by its position only, never the secret itself.
func assertNoSecret(t *testing.T, what, text string, secrets []string) {
	t.Helper()
	for i, s := range secrets {
		if s != "" && strings.Contains(text, s) {
			t.Errorf("%s shows secret %d of %d", what, i+1, len(secrets))
		}
	}
}

// TestNoSecretsInLogsOrErrors runs flows that touch every secret (a
// registration with a client secret, codes, verifiers, tokens, refresh
// tokens, a step-up, failures) with debug logging, and asserts no secret
// appears in the log, in error strings, or in the printed record and
// configuration.
func TestNoSecretsInLogsOrErrors(t *testing.T) {
	var logs oauthtest.LogBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	store := NewMemoryStore()
	k := newKit(t, kitConfig{PRMInHeader: true, RefreshTokens: true, AuthMethods: []string{authSecretPost},
		ChallengeScope: []string{"mcp:basic"},
		NeedScopes: func(method string) []string {
			if method == "tools/call" {
				return []string{"mcp:write"}
			}
			return nil
		}})
	a := k.authorizer(Config{}, Options{Logger: logger, Store: store, RefreshBefore: time.Hour})
	c := k.mcpClient(a)
	for _, m := range []string{"initialize", "tools/list", "tools/call"} {
		status, err := k.Call(c, m)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, status)
	}
	require.Positive(t, k.TokenRequests("refresh_token"), "the flow refreshed (RefreshBefore is an hour)")

	var errs []error
	for _, cfg := range []kitConfig{{RejectAllTokens: true}, {WrongState: true}, {ForbidAll: true}, {AlwaysTooLittle: true},
		{PRMResource: "https://evil.example.com/mcp"}} {
		fk := newKit(t, cfg)
		fa := fk.authorizer(Config{}, Options{Logger: logger})
		_, err := fk.Call(fk.mcpClient(fa), "initialize")
		require.Error(t, err)
		errs = append(errs, err)
	}
	bad := newKit(t, kitConfig{PreClients: map[string]string{"c": "right-secretvalue"}})
	ba := bad.authorizer(Config{Grant: GrantClientCredentials, ClientID: "c", ClientSecret: "wrong-secretvalue"}, Options{Logger: logger})
	_, err := bad.Call(bad.mcpClient(ba), "initialize")
	require.Error(t, err)
	errs = append(errs, err)

	secrets := secretsSeen(k)
	require.Greater(t, len(secrets), 3)
	text := logs.String()
	require.Contains(t, text, "oauth:", "debug logging was on")
	assertNoSecret(t, "the debug log", text, secrets)
	for _, err := range errs {
		assertNoSecret(t, "an error", err.Error(), secrets)
		assertNoSecret(t, "an error", fmt.Sprintf("%+v %#v", err, err), secrets)
	}

	rec, err := store.Load(context.Background(), a.impl.storeKey)
	require.NoError(t, err)
	require.NotEmpty(t, rec.ClientSecret)
	require.NotEmpty(t, rec.Token.RefreshToken)
	cfg := Config{ClientID: "id", ClientSecret: "cfg-secretvalue", PrivateKeyPEM: "pem-secretvalue",
		IDP: &IDPConfig{ClientSecret: "idp-secretvalue", IDToken: "idtoken-secretvalue"}}
	var printed bytes.Buffer
	fmt.Fprintf(&printed, "%v %+v %#v %s %v %+v %#v", rec, rec, rec, *rec, cfg, cfg, cfg)
	fmt.Fprintf(&printed, "%v %#v", cfg.IDP, *cfg.IDP)
	slog.New(slog.NewJSONHandler(&printed, nil)).Info("x", "rec", rec, "cfg", cfg, "recv", *rec)
	assertNoSecret(t, "a printed record or config", printed.String(), append(secrets, rec.Token.AccessToken))
	assert.Contains(t, printed.String(), redacted)
}

func TestRecordStringShowsWhatIsSet(t *testing.T) {
	r := Record{Resource: "https://r", ClientID: "cid", Token: &oauth2.Token{AccessToken: "x-secretvalue"}}
	s := r.String()
	assert.Contains(t, s, `ClientID:"cid"`)
	assert.Contains(t, s, "AccessToken:"+redacted)
	assert.Contains(t, s, "RefreshToken: ")
	assert.False(t, strings.Contains(s, "secretvalue"))
}
