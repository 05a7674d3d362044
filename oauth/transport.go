package oauth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// authTransport adds the server's access token to requests for the
// server and cures the 401 and 403 answers authorization can cure.
type authTransport struct {
	a    *authorizer
	base http.RoundTripper
}

func (a *authorizer) transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &authTransport{a: a, base: base}
}

// maxErrorBody bounds what is read of a refused answer's body.
const maxErrorBody = 64 << 10

// RoundTrip sends req with the current token. On a 401 it waits for the
// shared authorization (or refresh) and resends; on a 403
// insufficient_scope it waits for the shared step-up and resends, at most
// MaxStepUps times. What cannot be cured is an *UnauthorizedError;
// transport failures are returned as they are.
func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !sameOrigin(req.URL, t.a.resource) {
		// Never send this server's token anywhere else.
		return t.base.RoundTrip(req)
	}
	ctx := req.Context()
	getBody, err := rewindableBody(req)
	if err != nil {
		return nil, err
	}
	var (
		stepUps   int
		freshAuth bool // the token sent came from a grant run for this request
		refreshed bool // the token sent came from a refresh for this request
		attempts  = 4 + 2*t.a.maxStepUps
	)
	for attempt := 0; attempt < attempts; attempt++ {
		tok, gen, err := t.a.tokenForRequest(ctx)
		if err != nil {
			closeUnsent(req, attempt)
			return nil, err
		}
		out := req.Clone(ctx)
		if getBody != nil && (attempt > 0 || req.GetBody == nil) {
			if out.Body, err = getBody(); err != nil {
				closeUnsent(req, attempt)
				return nil, err
			}
		}
		if tok != nil {
			out.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		}
		resp, err := t.base.RoundTrip(out)
		if err != nil {
			return nil, err
		}

		ch, _ := parseBearerChallenge(resp.Header)
		switch {
		case isStepUp(resp.StatusCode, ch, tok != nil):
			discard(resp)
			stepUps++
			if stepUps > t.a.maxStepUps {
				return nil, &UnauthorizedError{Status: resp.StatusCode, Code: ch.Error, Description: ch.ErrorDescription,
					Reason: fmt.Sprintf("the server still asks for more scope after %d re-authorizations", t.a.maxStepUps)}
			}
			t.a.log.DebugContext(ctx, "oauth: insufficient_scope; stepping up", "scope", ch.Scopes, "step_up", stepUps)
			if _, err := t.a.obtain(ctx, gen, obtainRequest{reason: reasonStepUp, challenge: &ch}); err != nil {
				return nil, err
			}
			freshAuth = true

		case resp.StatusCode == http.StatusUnauthorized:
			if freshAuth && tok != nil && t.a.generationIs(gen) {
				code, desc := errorFromBody(resp, ch)
				return nil, &UnauthorizedError{Status: resp.StatusCode, Code: code, Description: desc,
					Reason: "the server refused the token of a fresh authorization"}
			}
			discard(resp)
			cure := obtainRequest{reason: reasonNoToken, challenge: &ch}
			if tok != nil {
				cure.reason, cure.noRefresh = reasonRejected, refreshed
			}
			t.a.log.DebugContext(ctx, "oauth: 401 challenge", "error", ch.Error, "scope", ch.Scopes, "had_token", tok != nil)
			got, err := t.a.obtain(ctx, gen, cure)
			if err != nil {
				return nil, err
			}
			// A token refreshed for this request that is refused again
			// calls for the grant; a granted one refused again is the end.
			freshAuth = freshAuth || got == outcomeGranted
			refreshed = refreshed || got == outcomeRefreshed

		case resp.StatusCode == http.StatusForbidden:
			code, desc := errorFromBody(resp, ch)
			return nil, &UnauthorizedError{Status: resp.StatusCode, Code: code, Description: desc,
				Reason: "the server forbids the request"}

		default:
			return resp, nil
		}
	}
	return nil, unauthorized(fmt.Sprintf("authorization did not succeed in %d attempts", attempts), nil)
}

// isStepUp reports whether an answer asks for more scope: a 403
// insufficient_scope (RFC 6750 §3.1), or the same error on a 401 to a
// request that had a token (some servers answer so).
func isStepUp(status int, ch bearerChallenge, hadToken bool) bool {
	if ch.Error != "insufficient_scope" {
		return false
	}
	return status == http.StatusForbidden || status == http.StatusUnauthorized && hadToken
}

// generationIs reports whether the token of generation gen is still the
// current one (a 401 for an older token says nothing about the new one).
func (a *authorizer) generationIs(gen uint64) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.gen == gen
}

// rewindableBody returns how to get a fresh copy of req's body for each
// attempt (nil when there is no body). The engine sets GetBody; a body
// without one is read into memory once.
func rewindableBody(req *http.Request) (func() (io.ReadCloser, error), error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if req.GetBody != nil {
		return req.GetBody, nil
	}
	b, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }, nil
}

// closeUnsent closes the caller's body when RoundTrip gives up before
// sending it (RoundTrip must always close it; once sent, the base
// transport has).
func closeUnsent(req *http.Request, attempt int) {
	if attempt == 0 && req.Body != nil && req.GetBody != nil {
		req.Body.Close()
	}
}

func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
}

// errorFromBody returns the OAuth error of a refused answer: the
// challenge's, else an {"error","error_description"} JSON body's.
func errorFromBody(resp *http.Response, ch bearerChallenge) (code, desc string) {
	defer discard(resp)
	code, desc = ch.Error, ch.ErrorDescription
	if code != "" && desc != "" {
		return code, desc
	}
	var body struct {
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, maxErrorBody)).Decode(&body) == nil {
		if code == "" {
			code = body.Error
		}
		if desc == "" {
			desc = body.ErrorDescription
		}
	}
	return code, desc
}
