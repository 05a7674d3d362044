package oauth

import (
	"context"
	"errors"
	"time"

	"golang.org/x/oauth2"
)

// obtainReason is why a new token is needed.
type obtainReason int

const (
	// reasonNoToken: a request without a token got a 401 (or Token found
	// none): discovery and the grant.
	reasonNoToken obtainReason = iota
	// reasonRejected: the server refused the current token with a 401:
	// refresh it, else run the grant again.
	reasonRejected
	// reasonExpiring: the current token expires within RefreshBefore.
	reasonExpiring
	// reasonStepUp: a 403 insufficient_scope: run the grant again with
	// the union of the scopes held and the challenge's.
	reasonStepUp
	// reasonLogin: Login: run the grant now whatever is held.
	reasonLogin
)

type obtainRequest struct {
	reason    obtainReason
	challenge *bearerChallenge // of the answer that asked for it, if any
	// noRefresh: a refreshed token was refused already; run the grant.
	noRefresh bool
}

// outcome is what obtain's caller got.
type outcome int

const (
	// outcomeChanged: the token had changed already; nothing was done.
	outcomeChanged outcome = iota
	// outcomeRefreshed: a refresh replaced the token.
	outcomeRefreshed
	// outcomeGranted: the grant ran (a fresh authorization).
	outcomeGranted
)

// flight is the one token operation in progress for an authorizer. Its
// work runs detached from the callers' contexts and is cancelled when the
// last caller waiting on it gives up.
type flight struct {
	done    chan struct{}
	err     error
	outcome outcome
	waiters int
	cancel  context.CancelFunc
}

// obtain makes sure the token of generation gen is replaced: it joins the
// operation in flight or starts one, and waits for it. When the token has
// already changed since gen (another request cured it), it returns at once
// and the caller just uses the new token.
func (a *authorizer) obtain(ctx context.Context, gen uint64, req obtainRequest) (outcome, error) {
	a.mu.Lock()
	if req.reason != reasonLogin && a.gen != gen {
		a.mu.Unlock()
		return outcomeChanged, nil
	}
	f := a.inflight
	if f == nil {
		opCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &flight{done: make(chan struct{}), cancel: cancel}
		a.inflight = f
		// Exits when acquire returns: its context is cancelled as soon as
		// no caller waits any more, and every request it makes is bound
		// to that context.
		go a.runFlight(opCtx, f, req)
	}
	f.waiters++
	a.mu.Unlock()

	select {
	case <-f.done:
		a.leave(f)
		return f.outcome, f.err
	case <-ctx.Done():
		a.leave(f)
		return outcomeChanged, ctx.Err()
	}
}

// leave unregisters a waiter; the last one to leave an unfinished flight
// cancels it and detaches it so that the next caller starts afresh.
func (a *authorizer) leave(f *flight) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f.waiters--
	select {
	case <-f.done:
		return
	default:
	}
	if f.waiters == 0 {
		f.cancel()
		if a.inflight == f {
			a.inflight = nil
		}
	}
}

// runFlight does the flight's work, stores and publishes its record.
func (a *authorizer) runFlight(ctx context.Context, f *flight, req obtainRequest) {
	defer f.cancel()
	out, rec, err := a.acquire(ctx, req)
	if err == nil {
		if serr := a.store.Save(ctx, a.storeKey, rec); serr != nil {
			// A token obtained but not kept safely is not used either.
			if ierr := insecureStore(serr); ierr != nil {
				err = ierr
			} else {
				a.log.WarnContext(ctx, "oauth: saving the token failed", "error", serr)
			}
		}
	}
	a.mu.Lock()
	if err == nil {
		a.rec = rec
		a.gen++
	}
	f.err, f.outcome = err, out
	if a.inflight == f {
		a.inflight = nil
	}
	close(f.done)
	a.mu.Unlock()
}

// acquire runs discovery when needed, then a refresh or the grant, and
// returns the new record (a copy of the current one with the new token).
func (a *authorizer) acquire(ctx context.Context, req obtainRequest) (out outcome, rec *Record, err error) {
	a.mu.Lock()
	cur, prev := a.rec, a.disc
	a.mu.Unlock()

	d := prev
	switch {
	case d == nil || req.reason == reasonLogin:
		// Login discovers afresh: the server may have moved to another
		// authorization server since.
		d, err = a.discover(ctx, req.challenge)
	case req.challenge != nil && (req.reason == reasonNoToken || req.reason == reasonRejected):
		// A 401 may mean just that (SEP-2352): the server moved to
		// another authorization server, which refuses the old one's
		// tokens. Its metadata says where authorization is now.
		d, err = a.rediscover(ctx, prev, req.challenge)
	}
	if err != nil {
		return outcomeChanged, nil, err
	}
	if d != prev {
		a.mu.Lock()
		a.disc = d
		a.mu.Unlock()
	}
	rec = cur.clone()
	if rec == nil {
		rec = &Record{}
	}
	if rec.Issuer != "" && rec.Issuer != d.as.Issuer {
		// Obtained from another authorization server: nothing of it is
		// valid here, and none of it may be shown to this one.
		if err := a.leaveAuthorizationServer(ctx, rec, d.as.Issuer); err != nil {
			return outcomeChanged, nil, err
		}
		rec = &Record{}
	}
	rec.Resource = d.resource

	if (req.reason == reasonRejected || req.reason == reasonExpiring) && !req.noRefresh && rec.Token != nil && rec.Token.RefreshToken != "" {
		tok, err := a.refresh(ctx, d, rec)
		if err == nil {
			rec.Token = tok
			return outcomeRefreshed, rec, nil
		}
		if !isOAuthRefusal(err) {
			return outcomeChanged, nil, err
		}
		a.log.DebugContext(ctx, "oauth: the refresh was refused; running the grant again", "error", err)
	}

	var challenged []string
	if req.challenge != nil {
		challenged = req.challenge.Scopes
	}
	scopes := a.selectScopes(d, challenged, rec.Scopes, req.reason == reasonStepUp)
	var tok *oauth2.Token
	switch a.grant {
	case GrantClientCredentials:
		tok, err = a.clientCredentials(ctx, d, rec, scopes)
	case GrantCrossAppAccess:
		tok, err = a.crossAppAccess(ctx, d, rec, scopes)
	default:
		tok, err = a.authorizationCode(ctx, d, rec, scopes)
	}
	if err != nil {
		return outcomeChanged, nil, err
	}
	rec.Issuer, rec.Scopes, rec.Token = d.as.Issuer, scopes, tok
	a.log.DebugContext(ctx, "oauth: authorized", "issuer", rec.Issuer, "scopes", scopes, "grant", a.grant)
	return outcomeGranted, rec, nil
}

// tokenForRequest returns the token to send (nil: none yet, the request
// goes without one and its 401 starts the authorization) and its
// generation. A token about to expire is renewed first when that needs no
// user (a refresh token, or a machine-to-machine grant); if renewing
// fails while the token is still valid, the old one is used.
func (a *authorizer) tokenForRequest(ctx context.Context) (*oauth2.Token, uint64, error) {
	if err := a.ensureLoaded(ctx); err != nil {
		return nil, 0, err
	}
	rec, gen := a.current()
	if rec == nil || rec.Token == nil {
		return nil, gen, nil
	}
	tok := rec.Token
	if tok.Expiry.IsZero() || time.Until(tok.Expiry) > a.refreshBefore || !a.renewsSilently(rec) {
		return tok, gen, nil
	}
	_, err := a.obtain(ctx, gen, obtainRequest{reason: reasonExpiring})
	if err != nil {
		if time.Now().Before(tok.Expiry) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			a.log.DebugContext(ctx, "oauth: renewing the token failed; using it until it expires", "error", err)
			return tok, gen, nil
		}
		return nil, gen, err
	}
	rec, gen = a.current()
	if rec == nil || rec.Token == nil {
		return nil, gen, nil
	}
	return rec.Token, gen, nil
}

// renewsSilently reports whether a token can be renewed without a user.
func (a *authorizer) renewsSilently(rec *Record) bool {
	return rec.Token.RefreshToken != "" || a.grant != GrantAuthorizationCode
}
