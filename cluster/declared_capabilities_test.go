//go:build !race

package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
)

// initializeRecorder serves the demo server and keeps the client
// capabilities of every initialize request it passes on.
type initializeRecorder struct {
	next http.Handler
	mu   sync.Mutex
	caps []messages.ClientCapabilities
}

func (r *initializeRecorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method == http.MethodPost {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		var m struct {
			Method string                    `json:"method"`
			Params messages.InitializeParams `json:"params"`
		}
		if json.Unmarshal(body, &m) == nil && m.Method == messages.MethodInitialize {
			r.mu.Lock()
			r.caps = append(r.caps, m.Params.Capabilities)
			r.mu.Unlock()
		}
	}
	r.next.ServeHTTP(w, req)
}

func (r *initializeRecorder) last(t *testing.T) messages.ClientCapabilities {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.caps) == 0 {
		t.Fatal("no initialize reached the server")
	}
	return r.caps[len(r.caps)-1]
}

// A session's owner declares sampling, elicitation and roots to its
// server only when the cluster answers them: when it serves server
// requests itself, or is told others do (ForwardServerRequests). A
// cluster that answers none declares none, so that its servers never ask.
func TestOwnersDeclareServerRequestsOnlyWhenTheClusterAnswersThem(t *testing.T) {
	demo := demoserver.New(demoserver.Options{Versions: messages.LegacyVersions})
	rec := &initializeRecorder{next: demo.HTTPHandler(demoserver.HTTPOptions{})}
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)
	servers := map[string]mcpengine.ServerConfig{"demo": {URL: ts.URL + demoserver.PathStreamable}}
	for _, tc := range []struct {
		name     string
		set      func(c *Config)
		declared bool
	}{
		{"none", func(*Config) {}, false},
		{"forwards", func(c *Config) { c.ForwardServerRequests = true }, true},
		{"answers", func(c *Config) {
			c.ServerRequests = func(context.Context, string, string, json.RawMessage) (json.RawMessage, error) { return nil, nil }
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := startMembers(t, 1, Config{Servers: servers}, func(_ int, c *Config) { tc.set(c) })
			waitMembers(t, ms, 1)
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			if _, err := ms[0].Session("demo", tc.name).Call(ctx, messages.MethodToolsList, nil); err != nil {
				t.Fatal(err)
			}
			caps := rec.last(t)
			got := [3]bool{caps.Sampling != nil, caps.Elicitation != nil, caps.Roots != nil}
			if want := [3]bool{tc.declared, tc.declared, tc.declared}; got != want {
				t.Fatalf("declared sampling, elicitation, roots: %v, want %v", got, want)
			}
		})
	}
}
