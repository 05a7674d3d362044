package oauth

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/internal/oauthtest"
)

// kit is the shared test kit (internal/oauthtest) with the client side
// the package's tests build on it: an Authorizer for its server and the
// engine's view of it, an http.Client whose transport is the
// authorizer's.
type kit struct {
	*oauthtest.Kit
	t *testing.T
}

// kitConfig shapes the kit's servers (oauthtest.Config).
type kitConfig = oauthtest.Config

// testRedirectURI is registered and sent; the redirect agent never
// connects to it.
const testRedirectURI = oauthtest.RedirectURI

func newKit(t *testing.T, cfg kitConfig) *kit {
	t.Helper()
	return &kit{Kit: oauthtest.New(t, cfg), t: t}
}

func (k *kit) authorizer(cfg Config, opts Options) *Authorizer {
	k.t.Helper()
	if opts.HTTPClient == nil {
		opts.HTTPClient = k.Client()
	}
	if opts.UserAgent == nil && cfg.Grant == "" {
		opts.UserAgent = NewRedirectAgent(k.Client(), testRedirectURI)
	}
	a, err := New(k.ServerURL(), cfg, opts)
	require.NoError(k.t, err)
	return a
}

// mcpClient is the engine's view: one http.Client whose transport is the
// authorizer's.
func (k *kit) mcpClient(a *Authorizer) *http.Client {
	return &http.Client{Transport: a.Transport(k.Client().Transport)}
}

// newHeaderRecorder serves an origin that records the Authorization header
// it receives.
func newHeaderRecorder(t *testing.T, got *string) string {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		*got = r.Header.Get("Authorization")
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
