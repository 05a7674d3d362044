package httpserve

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpengine/mcpengine/messages"
)

// DefaultBodyTimeout bounds the reading of a request body when a Guard
// says nothing else: a 4 MiB body takes well under a second on any link a
// client of ours has, and a client that trickles one byte every few
// seconds must not hold a connection for ever.
const DefaultBodyTimeout = 30 * time.Second

// Guard is what every request to the module's MCP servers passes before a
// handler reads its body: the DNS-rebinding protection (Host and Origin)
// and a deadline for reading the body. Its zero value applies the
// defaults.
//
// The Host check answers DNS rebinding: a page of evil.example whose name
// the attacker re-points at 127.0.0.1 reaches a loopback server with
// "Host: evil.example:PORT" (and the same Origin), which no client that
// meant to talk to this machine sends. So a request that arrived on a
// loopback address must name a loopback host (localhost, 127.0.0.0/8,
// [::1], any port) or one of AllowedHosts. On other addresses the Host
// check applies only when AllowedHosts lists something: a server open to
// the network is reached under names this package cannot guess (and the
// gateway requires client tokens there). Names are never resolved: DNS is
// what the attacker controls.
//
// An Origin header, when present (a browser), must name an acceptable
// host too, or be listed in AllowedOrigins; where the Host check does not
// apply, an Origin equal to the request's own Host or a loopback one is
// accepted, as before.
type Guard struct {
	// AllowedHosts are Host values accepted besides loopback names: a
	// name alone ("mcp.example.com") with any port, or "name:port" with
	// that port only. Case does not matter.
	AllowedHosts []string
	// AllowedOrigins are Origin values accepted verbatim
	// ("https://app.example").
	AllowedOrigins []string
	// BodyTimeout bounds the time to read a request's body, from the end
	// of its headers (0: DefaultBodyTimeout; negative: no bound).
	BodyTimeout time.Duration
}

// Check applies the Host and Origin rules to r. On a refusal it answers
// 403, closing the connection, and returns false.
func (g *Guard) Check(w http.ResponseWriter, r *http.Request) bool {
	if msg := g.refusal(r); msg != "" {
		Refuse(w, r, http.StatusForbidden, messages.CodeInvalidRequest, msg)
		return false
	}
	return true
}

// refusal says why r is refused, or "" when it is accepted.
func (g *Guard) refusal(r *http.Request) string {
	checkHost := len(g.AllowedHosts) > 0 || arrivedOnLoopback(r)
	if checkHost && !g.hostAllowed(r.Host) {
		if r.Host == "" {
			return "a request without a Host header is refused (DNS-rebinding protection)"
		}
		// The allowed hosts are not listed: the refused client may be
		// the hostile page itself.
		return "host " + quoteHeader(r.Host) + " is not allowed: this server answers to loopback names and its allowed hosts only (DNS-rebinding protection; allow more with an allowed host)"
	}
	origin := r.Header.Get("Origin")
	if origin == "" || slices.Contains(g.AllowedOrigins, origin) {
		return ""
	}
	u, err := url.Parse(origin)
	switch {
	case err != nil || u.Host == "":
		return "origin " + quoteHeader(origin) + " is not allowed"
	case checkHost && g.hostAllowed(u.Host):
		return ""
	case !checkHost && (strings.EqualFold(u.Host, r.Host) || IsLoopbackHost(u.Hostname())):
		return ""
	}
	return "origin " + quoteHeader(origin) + " is not allowed (DNS-rebinding protection; allow it with an allowed origin or host)"
}

// quoteHeader quotes a header value for an error message, escaping what
// a hostile client may have put in it.
func quoteHeader(s string) string {
	const limit = 100
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return `"` + strings.NewReplacer(`"`, `\"`, "\n", `\n`, "\r", `\r`).Replace(s) + `"`
}

// hostAllowed reports whether a Host value (host, or host:port) is a
// loopback name or one of AllowedHosts.
func (g *Guard) hostAllowed(hostport string) bool {
	if hostport == "" {
		return false
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	if IsLoopbackHost(host) {
		return true
	}
	for _, a := range g.AllowedHosts {
		if _, _, err := net.SplitHostPort(a); err == nil {
			if strings.EqualFold(a, hostport) {
				return true
			}
		} else if strings.EqualFold(strings.Trim(a, "[]"), strings.Trim(host, "[]")) {
			return true
		}
	}
	return false
}

// arrivedOnLoopback reports whether the request came in on a loopback
// address of this host (the connection's local address, which net/http
// puts in the request's context). A listener on every interface thus
// checks the Host of what reaches it through loopback, where a rebinding
// page lands, and not of what comes from the network.
func arrivedOnLoopback(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Wrap returns h behind the guard: requests it refuses never reach h, and
// the body of every other request must arrive within BodyTimeout.
func (g *Guard) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.Check(w, r) {
			return
		}
		g.boundBody(w, r)
		h.ServeHTTP(w, r)
	})
}

// boundBody sets a read deadline for r's body, lifted once the body has
// been read to its end: what follows (a long tool call, an SSE answer)
// must not be cut by it, and net/http's background read, which notices a
// client that hangs up, would take the deadline for a hang-up. A body
// never read to its end keeps the deadline, so the connection cannot be
// held by a body the handler ignored. Requests without a body (GET
// streams) are left alone.
func (g *Guard) boundBody(w http.ResponseWriter, r *http.Request) {
	d := g.BodyTimeout
	if d == 0 {
		d = DefaultBodyTimeout
	}
	if d < 0 || r.Body == nil || r.Body == http.NoBody {
		return
	}
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(d)) != nil {
		return // not a connection of net/http's (a test recorder)
	}
	r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
}

// deadlineBody lifts the read deadline once its body has been read to
// the end (or failed).
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !b.done {
		b.done = true
		if err == io.EOF {
			_ = b.rc.SetReadDeadline(time.Time{})
		}
	}
	return n, err
}

// Refuse answers an HTTP error (see Error) to a request whose body was
// not read, and over HTTP/1.x closes the connection after it, at once.
// Otherwise net/http reads what is left of the body, however slowly it
// comes, before it sends the answer (and again after it, to reuse the
// connection): a client refused for want of a token would hold the
// connection as long as it likes. (HTTP/2 sends the answer at once and
// the stream's end needs no body; its connection is left to its other
// streams.)
func Refuse(w http.ResponseWriter, r *http.Request, status int, code int64, msg string) {
	if r.ProtoMajor == 1 {
		w.Header().Set("Connection", "close")
		// Whatever of the body is still to come is not waited for.
		_ = http.NewResponseController(w).SetReadDeadline(time.Now())
	}
	Error(w, status, code, msg)
}
