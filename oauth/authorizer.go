package oauth

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/oauth2"
)

const (
	defaultRefreshBefore = 30 * time.Second
	defaultMaxStepUps    = 2
)

// authorizer is the state behind an Authorizer: what discovery found, the
// current record (token and client identity), and the one token
// operation in flight.
type authorizer struct {
	serverURL     string   // as configured: the probe's target
	resource      *url.URL // canonical server URL
	cfg           Config
	grant         string
	key           *assertionKey // parsed Config.PrivateKeyPEM, if any
	httpClient    *http.Client
	store         TokenStore
	storeKey      string
	subject       string // the user acted for; "" for none
	agent         UserAgent
	log           *slog.Logger
	refreshBefore time.Duration
	maxStepUps    int

	loadMu     sync.Mutex // serializes the first store load
	loaded     bool
	loadedFast atomic.Bool // loaded, readable without loadMu

	mu sync.Mutex
	// rec is the current record. It is replaced, never modified, once
	// published, so readers may keep it after unlocking.
	rec *Record
	// gen counts token changes: a request remembers the generation of the
	// token it sent, and a failure for an older generation is cured by
	// just sending the newer token.
	gen      uint64
	disc     *discovery
	inflight *flight
}

func newAuthorizer(serverURL string, cfg Config, opts Options) (*authorizer, error) {
	res, err := canonicalResource(serverURL)
	if err != nil {
		return nil, err
	}
	a := &authorizer{
		serverURL:     serverURL,
		resource:      res,
		cfg:           cfg,
		grant:         cfg.Grant,
		httpClient:    opts.HTTPClient,
		store:         opts.Store,
		agent:         opts.UserAgent,
		log:           opts.Logger,
		refreshBefore: opts.RefreshBefore,
		maxStepUps:    cfg.MaxStepUps,
		subject:       opts.Subject,
	}
	switch a.grant {
	case "":
		a.grant = GrantAuthorizationCode
	case GrantAuthorizationCode, GrantClientCredentials:
	case GrantCrossAppAccess:
		if cfg.IDP == nil {
			return nil, fmt.Errorf("oauth: grant %q needs idp", a.grant)
		}
		if cfg.ClientID == "" {
			return nil, fmt.Errorf("oauth: grant %q needs clientId", a.grant)
		}
	default:
		return nil, fmt.Errorf("oauth: unknown grant %q", cfg.Grant)
	}
	switch cfg.TokenEndpointAuthMethod {
	case "", authNone, authSecretBasic, authSecretPost, authPrivateKeyJWT:
	default:
		return nil, fmt.Errorf("oauth: unknown tokenEndpointAuthMethod %q", cfg.TokenEndpointAuthMethod)
	}
	if cfg.PrivateKeyPEM != "" {
		if a.key, err = parseAssertionKey(cfg.PrivateKeyPEM, cfg.SigningAlgorithm, cfg.KeyID); err != nil {
			return nil, err
		}
	}
	if a.httpClient == nil {
		a.httpClient = http.DefaultClient
	}
	if a.store == nil {
		a.store = newMemoryStore()
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if a.refreshBefore <= 0 {
		a.refreshBefore = defaultRefreshBefore
	}
	if a.maxStepUps <= 0 {
		a.maxStepUps = defaultMaxStepUps
	}
	a.storeKey = storeKey(res.String(), a.grant, cfg, a.subject)
	return a, nil
}

// storeKey names a record: the canonical server URL, the grant and the
// client identity it was obtained with (configured client id, metadata
// document URL, or "dynamic" for a dynamic registration), and for
// cross-app access the identity provider and its client. Another
// configuration of the same server thus never picks up a token obtained
// for another client. Scopes are not part of it: a step-up replaces the
// record. A subject comes last, quoted so that no subject can spell
// another key; the empty subject adds nothing, keeping the keys (and so
// the stored records) of releases before subjects.
func storeKey(resource, grant string, cfg Config, subject string) string {
	client := "dynamic"
	switch {
	case cfg.ClientID != "":
		client = "id:" + cfg.ClientID
	case cfg.ClientMetadataURL != "":
		client = "metadata:" + cfg.ClientMetadataURL
	}
	parts := []string{"mcpengine-oauth/v1", resource, "grant:" + grant, client}
	if grant == GrantCrossAppAccess && cfg.IDP != nil {
		parts = append(parts, "idp:"+cfg.IDP.Issuer, "idp-client:"+cfg.IDP.ClientID)
	}
	if subject != "" {
		parts = append(parts, "subject:"+strconv.Quote(subject))
	}
	return strings.Join(parts, " ")
}

// ensureLoaded reads the stored record once (until a read succeeds). A
// store that refuses to be used because others could read or replace
// its tokens (*InsecureTokenStoreError) fails the caller, as a permanent
// authorization failure naming the fix; any other read failure is logged
// and the engine goes on without the stored token.
func (a *authorizer) ensureLoaded(ctx context.Context) error {
	if a.loadedFast.Load() {
		return nil
	}
	a.loadMu.Lock()
	defer a.loadMu.Unlock()
	if a.loaded {
		return nil
	}
	rec, err := a.store.Load(ctx, a.storeKey)
	if err != nil {
		if err := insecureStore(err); err != nil {
			return err
		}
		a.log.WarnContext(ctx, "oauth: reading the token store failed", "error", err)
		return nil
	}
	a.loaded = true
	defer a.loadedFast.Store(true)
	if rec == nil {
		return nil
	}
	a.mu.Lock()
	if a.rec == nil {
		a.rec = rec
		a.gen++
	}
	a.mu.Unlock()
	return nil
}

// current returns the current record and its generation.
func (a *authorizer) current() (*Record, uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.rec, a.gen
}

func (a *authorizer) token(ctx context.Context) (*oauth2.Token, error) {
	tok, gen, err := a.tokenForRequest(ctx)
	if err != nil {
		return nil, err
	}
	if tok != nil && (tok.Expiry.IsZero() || time.Now().Before(tok.Expiry)) {
		return copyToken(tok), nil
	}
	reason := reasonNoToken
	if tok != nil {
		reason = reasonRejected
	}
	if _, err := a.obtain(ctx, gen, obtainRequest{reason: reason}); err != nil {
		return nil, err
	}
	rec, _ := a.current()
	if rec == nil || rec.Token == nil {
		return nil, unauthorized("no token was obtained", nil)
	}
	return copyToken(rec.Token), nil
}

func (a *authorizer) login(ctx context.Context) error {
	if err := a.ensureLoaded(ctx); err != nil {
		return err
	}
	_, err := a.obtain(ctx, 0, obtainRequest{reason: reasonLogin})
	return err
}

func (a *authorizer) logout(ctx context.Context) error {
	a.mu.Lock()
	a.rec = nil
	a.gen++
	a.mu.Unlock()
	a.loadMu.Lock()
	a.loaded = true // nothing to load any more
	a.loadedFast.Store(true)
	a.loadMu.Unlock()
	return a.store.Delete(ctx, a.storeKey)
}

func copyToken(t *oauth2.Token) *oauth2.Token {
	c := *t
	return &c
}
