package gateway

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// fwd is one request to forward to a server, from either endpoint.
type fwd struct {
	who    *principal
	srv    *upstream
	method string
	params messages.RawMessage // as the server gets them: names without the prefix
	// kind and name are what the policies check besides the server: the
	// tool or prompt name, or the resource URI (kind "" for none).
	kind ruleKind
	name string
	args messages.RawMessage // tools/call arguments, for the audit log
	// progress, when set, receives the params of the server's progress
	// notifications for this request.
	progress func(messages.RawMessage)
	front    *frontSession // the aggregated-endpoint session, nil for routing
	out      *frontStream  // its answer stream, nil for a JSON answer
	endpoint string        // "mcp" or "rpc", for the audit log and metrics
}

// errToolTimeLimit is the cancellation cause of a tool call cut off by
// maxToolTime.
var errToolTimeLimit = errors.New("gateway: maxToolTime exceeded")

// forward checks the policies, then sends the request to the least-loaded
// ready session of the server and returns the server's raw result or the
// error the client gets (errNoAnswer when the client cancelled). Tool
// calls are audited whatever their outcome.
func (g *Gateway) forward(ctx context.Context, r *fwd) (messages.RawMessage, *messages.WireError) {
	start := time.Now()
	acc := r.who.access[r.srv.name]
	res, werr, o := g.forwardChecked(ctx, r, acc, start)
	if o == outcomeOK && r.method == messages.MethodToolsCall && messages.ToolResultIsError(res) {
		o = outcomeToolError
	}
	elapsed := time.Since(start)
	g.metrics.request(ctx, r, o, elapsed)
	if r.method == messages.MethodToolsCall {
		g.audit.toolCall(r, start, elapsed, o, werr)
	}
	return res, werr
}

func (g *Gateway) forwardChecked(ctx context.Context, r *fwd, acc *access, now time.Time) (messages.RawMessage, *messages.WireError, outcome) {
	if d := acc.check(kindServers, r.srv.name); d != nil {
		return nil, denied(r.srv.name, d), outcomeDenied
	}
	if r.kind != "" {
		if d := acc.check(r.kind, r.name); d != nil {
			return nil, denied(r.srv.name, d), outcomeDenied
		}
	}
	if label := acc.limitedBy(now); label != "" {
		return nil, rateLimited(r.srv.name, label), outcomeRateLimited
	}
	cctx := ctx
	var limit time.Time
	if r.method == messages.MethodToolsCall && acc.maxToolTime > 0 {
		var cancel context.CancelFunc
		limit = now.Add(acc.maxToolTime)
		cctx, cancel = context.WithDeadlineCause(ctx, limit, errToolTimeLimit)
		defer cancel()
	}
	raw, err := g.send(cctx, r)
	switch {
	case err == nil:
	case !limit.IsZero() && ctx.Err() == nil && (context.Cause(cctx) == errToolTimeLimit ||
		// The session's own deadline check, which the limit also set, may
		// fire a moment before the context's timer does.
		(errors.Is(err, mcpengine.ErrTimeout) && !time.Now().Before(limit))):
		return nil, toolTimeLimit(r.srv.name, acc), outcomeTimeLimit
	case ctx.Err() != nil:
		return nil, errNoAnswer, outcomeCancelled
	default:
		werr, o := upstreamError(r.srv.name, err)
		return nil, werr, o
	}
	if r.method == messages.MethodResourcesRead {
		if d := acc.sizeDenial(r.name, contentsSize(raw)); d != nil {
			return nil, denied(r.srv.name, d), outcomeDenied
		}
	}
	return raw, nil, outcomeOK
}

// send picks a member and makes the call. A member that stopped being
// ready between the pick and the send refuses the call without sending it
// (FailFast), and the call goes to another one.
func (g *Gateway) send(ctx context.Context, r *fwd) (messages.RawMessage, error) {
	var exclusive *frontSession
	if r.front != nil && r.front.takesServerRequests() {
		exclusive = r.front
	}
	params := r.params
	var progress func(messages.ProgressParams)
	if r.progress != nil || bytes.Contains(params, []byte(`"progressToken"`)) {
		// The engine puts a token of its own in place of the client's
		// (which could collide with the engine's) and hands the server's
		// progress to r.progress, all of it before the answer returns.
		// Without r.progress nobody listens.
		fn := r.progress
		progress = func(p messages.ProgressParams) {
			if fn == nil {
				return
			}
			if raw, err := messages.Marshal(&p); err == nil {
				fn(raw)
			}
		}
	}
	var lastErr error
	for range 2 {
		m := r.srv.pool.acquire(ctx, g.cfg.ReadyWait, exclusive)
		if m == nil {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if lastErr == nil {
				lastErr = r.srv.lastError()
			}
			return nil, &unavailableError{lastErr}
		}
		f := m.begin(r.front, r.out)
		raw, err := m.s.call(ctx, r.method, params, progress, exclusive != nil)
		m.end(f)
		if errors.Is(err, mcpengine.ErrNotReady) {
			lastErr = err
			continue
		}
		return raw, err
	}
	return nil, &unavailableError{lastErr}
}

// lastError is the most recent connection failure of any member.
func (u *upstream) lastError() error {
	for _, m := range u.pool.members {
		if err := m.s.LastError(); err != nil {
			return err
		}
	}
	return errors.New("no session ready")
}

// contentsSize is the size of a resources/read result's contents: the
// bytes of every text and of every decoded blob.
func contentsSize(raw messages.RawMessage) int64 {
	var r struct {
		Contents []struct {
			Text *string `json:"text"`
			Blob *string `json:"blob"`
		} `json:"contents"`
	}
	if messages.Unmarshal(raw, &r) != nil {
		return int64(len(raw))
	}
	var n int64
	for _, c := range r.Contents {
		if c.Text != nil {
			n += int64(len(*c.Text))
		}
		if c.Blob != nil {
			n += int64(base64.StdEncoding.DecodedLen(len(*c.Blob)))
		}
	}
	return n
}

// outcome classifies a forwarded request for the audit log and metrics.
type outcome string

const (
	outcomeOK          outcome = "ok"
	outcomeToolError   outcome = "tool_error" // the tool ran and said isError
	outcomeError       outcome = "error"      // the server answered a JSON-RPC error
	outcomeDenied      outcome = "denied"     // a policy refused it
	outcomeRateLimited outcome = "rate_limited"
	outcomeTimeLimit   outcome = "time_limit"  // cut off by maxToolTime
	outcomeTimeout     outcome = "timeout"     // no answer within the request timeout
	outcomeUnavailable outcome = "unavailable" // the server could not be reached
	outcomeCancelled   outcome = "cancelled"   // the client cancelled or went away
)
