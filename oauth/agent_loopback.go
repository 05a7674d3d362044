package oauth

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// loopbackAgent runs the interactive step with a browser: it listens on
// 127.0.0.1 for the redirect (RFC 8252 §7.3) while open shows the user
// the authorization URL. The listener lives only during Authorize.
type loopbackAgent struct {
	open func(authURL string) error

	mu   sync.Mutex
	port int // fixed once chosen so that the registered redirect URI stays valid
}

const callbackPath = "/callback"

const callbackPage = `<!doctype html><html><head><meta charset="utf-8"><title>mcpengine</title></head>` +
	`<body><p>Authorization finished. You can close this window.</p></body></html>`

func newLoopbackAgent(port int, open func(authURL string) error) UserAgent {
	return &loopbackAgent{port: port, open: open}
}

// RedirectURI picks the port (a free one when none was configured) and
// keeps it, without listening yet.
func (l *loopbackAgent) RedirectURI(context.Context) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.port == 0 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", fmt.Errorf("oauth: loopback redirect: %w", err)
		}
		l.port = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
	}
	return l.uri(), nil
}

func (l *loopbackAgent) uri() string {
	return "http://127.0.0.1:" + strconv.Itoa(l.port) + callbackPath
}

// Authorize listens, opens the authorization URL and waits for the
// redirect (or ctx). The listener and its server are closed before it
// returns.
func (l *loopbackAgent) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	if _, err := l.RedirectURI(ctx); err != nil {
		return nil, err
	}
	l.mu.Lock()
	addr := "127.0.0.1:" + strconv.Itoa(l.port)
	l.mu.Unlock()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("oauth: loopback redirect: %w", err)
	}
	got := make(chan url.Values, 1)
	srv := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			if r.URL.Path != callbackPath || q.Get("code") == "" && q.Get("error") == "" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(callbackPage))
			select { // the first redirect wins; later ones are ignored
			case got <- q:
			default:
			}
		}),
	}
	served := make(chan struct{})
	// Exits when srv is shut down below (Serve then returns).
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	defer func() {
		shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		if srv.Shutdown(shutCtx) != nil {
			srv.Close()
		}
		<-served
	}()
	if l.open != nil {
		if err := l.open(authURL); err != nil {
			return nil, fmt.Errorf("oauth: opening the authorization URL: %w", err)
		}
	}
	select {
	case q := <-got:
		return q, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("oauth: waiting for the authorization redirect: %w", ctx.Err())
	}
}
