package testkit

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// RequestAs sends one MCP-style HTTP request naming host as its Host (what
// a page reached through DNS rebinding sends), with header as name, value
// pairs, on a connection of its own that is closed afterwards. The caller
// closes the answer's body.
func RequestAs(tb testing.TB, ctx context.Context, method, url, host, body string, header ...string) *http.Response {
	tb.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		tb.Fatalf("request %s %s: %v", method, url, err)
	}
	req.Host = host
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		tb.Fatalf("%s %s (Host %s): %v", method, url, host, err)
	}
	return resp
}
