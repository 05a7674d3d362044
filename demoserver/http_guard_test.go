package demoserver

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/internal/testkit"
	"github.com/mcpengine/mcpengine/messages"
)

// listenHTTP runs the server on a loopback port, as engine serve does,
// until the test ends.
func listenHTTP(t *testing.T, ho HTTPOptions) *HTTPServer {
	t.Helper()
	hs, err := New(Options{}).ListenHTTP("127.0.0.1:0", ho)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		require.NoError(t, hs.Close(ctx))
	})
	return hs
}

// rawRequest sends one request with the given Host and headers on a
// connection of its own and returns the status and body.
func rawRequest(t *testing.T, method, url, host, body string, header ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	resp := testkit.RequestAs(t, ctx, method, url, host, body, header...)
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp.StatusCode, "" // an open stream: its status is the answer
	}
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

// A page of evil.example whose name now resolves to 127.0.0.1 sends its
// own name as Host and Origin: every endpoint refuses it with 403 before
// doing anything, while the same requests naming a loopback host work.
func TestHTTPRefusesADNSRebinding(t *testing.T) {
	hs := listenHTTP(t, HTTPOptions{})
	port := hs.URL[strings.LastIndex(hs.URL, ":")+1:]
	evil := "evil.example:" + port
	origin := "Origin"

	status, body := rawRequest(t, http.MethodPost, hs.StreamableURL(), evil, initializeBody, origin, "http://"+evil)
	assert.Equal(t, http.StatusForbidden, status, "initialize")
	assert.Contains(t, body, `host \"`+evil+`\" is not allowed`)
	status, _ = rawRequest(t, http.MethodPost, hs.StreamableURL(), evil, initializeBody)
	assert.Equal(t, http.StatusForbidden, status, "Host alone")
	status, _ = rawRequest(t, http.MethodGet, hs.SSEURL(), evil, "", origin, "http://"+evil, "Accept", "text/event-stream")
	assert.Equal(t, http.StatusForbidden, status, "GET /sse")
	status, _ = rawRequest(t, http.MethodGet, hs.URL+PathWebSocket, evil, "", origin, "http://"+evil)
	assert.Equal(t, http.StatusForbidden, status, "the WebSocket endpoint")

	// A session opened by a local client cannot be used by the page.
	local := "127.0.0.1:" + port
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hs.StreamableURL(), strings.NewReader(initializeBody))
	require.NoError(t, err)
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	session := resp.Header.Get(HeaderSessionID)
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`
	status, _ = rawRequest(t, http.MethodPost, hs.StreamableURL(), evil, call, origin, "http://"+evil, HeaderSessionID, session)
	assert.Equal(t, http.StatusForbidden, status, "tools/call")
	status, body = rawRequest(t, http.MethodPost, hs.StreamableURL(), local, call, HeaderSessionID, session)
	assert.Equal(t, http.StatusOK, status, "the same call from a local client: %s", body)
	status, _ = rawRequest(t, http.MethodPost, hs.StreamableURL(), "localhost:"+port, call, origin, "http://localhost:3000", HeaderSessionID, session)
	assert.Equal(t, http.StatusOK, status, "a loopback name and origin")
}

func TestHTTPAllowedHosts(t *testing.T) {
	hs := listenHTTP(t, HTTPOptions{AllowedHosts: []string{"mcp.example"}})
	status, body := rawRequest(t, http.MethodPost, hs.StreamableURL(), "mcp.example:1234", initializeBody, "Origin", "https://mcp.example")
	assert.Equal(t, http.StatusOK, status, body)
	status, _ = rawRequest(t, http.MethodPost, hs.StreamableURL(), "other.example", initializeBody)
	assert.Equal(t, http.StatusForbidden, status)
}

// A client that trickles its body gets 408 once the body deadline passes,
// and its connection is closed (before: it held the connection as long
// as it kept sending a byte now and then).
func TestHTTPSlowBodyIsCutOff(t *testing.T) {
	hs := listenHTTP(t, HTTPOptions{BodyTimeout: 50 * time.Millisecond})
	addr := strings.TrimPrefix(hs.URL, "http://")
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(testTimeout)))
	_, err = io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err, "answered before the client's own deadline")
	assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
	_, _ = io.Copy(io.Discard, resp.Body)
	_, err = c.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "the connection is closed")
}

// The body deadline ends with the body: a call that runs far longer is
// answered.
func TestHTTPBodyDeadlineSparesLongCalls(t *testing.T) {
	for _, mode := range []AnswerMode{AnswerJSON, AnswerSSE} {
		hs := listenHTTP(t, HTTPOptions{BodyTimeout: 20 * time.Millisecond, AnswerMode: mode})
		c := &h2cOrNot{url: hs.StreamableURL(), client: http.DefaultClient}
		c.initialize(t)
		res := c.call(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":300}}}`)
		assert.Nil(t, res.Error, mode.String())
	}
}

// h2cOrNot is a bare Streamable HTTP client over the given http.Client.
type h2cOrNot struct {
	url     string
	client  *http.Client
	session string
}

func (c *h2cOrNot) post(t *testing.T, body string) *http.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader([]byte(body)))
	require.NoError(t, err)
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	if c.session != "" {
		req.Header.Set(HeaderSessionID, c.session)
		req.Header.Set(HeaderProtocolVersion, "2025-11-25")
	}
	resp, err := c.client.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

func (c *h2cOrNot) initialize(t *testing.T) {
	t.Helper()
	resp := c.post(t, initializeBody)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	c.session = resp.Header.Get(HeaderSessionID)
	require.NotEmpty(t, c.session)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp = c.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
}

func (c *h2cOrNot) call(t *testing.T, body string) messages.Message {
	t.Helper()
	resp := c.post(t, body)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return readAnswer(t, resp)
}

// engine serve --transport http speaks h2c with prior knowledge: a client
// that knows only HTTP/2 without TLS calls a tool (before: "frame header
// looked like an HTTP/1.1 header").
func TestHTTPServesH2CWithPriorKnowledge(t *testing.T) {
	hs := listenHTTP(t, HTTPOptions{})
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &p}
	defer tr.CloseIdleConnections()
	c := &h2cOrNot{url: hs.StreamableURL(), client: &http.Client{Transport: tr}}
	c.initialize(t)
	resp := c.post(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"over h2c"}}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, 2, resp.ProtoMajor, "HTTP/2")
	m := readAnswer(t, resp)
	require.Nil(t, m.Error)
	assert.Contains(t, string(m.Result), "over h2c")
}

// Past MaxConnections, a new connection waits until one closes.
func TestHTTPCapsConnections(t *testing.T) {
	hs := listenHTTP(t, HTTPOptions{MaxConnections: 2})
	addr := strings.TrimPrefix(hs.URL, "http://")
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		// A request answered on it proves the server took the connection.
		require.NoError(t, c.SetDeadline(time.Now().Add(testTimeout)))
		_, err = io.WriteString(c, "GET /mcp HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err)
		resp.Body.Close()
		held = append(held, c)
	}
	third, err := net.Dial("tcp", addr) // the kernel's queue takes it
	require.NoError(t, err)
	defer third.Close()
	_, err = io.WriteString(third, "GET /mcp HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
	require.NoError(t, err)
	// Not served while two are open. (A short look: it can only miss a
	// server that serves too many, never fail a correct one.)
	require.NoError(t, third.SetReadDeadline(time.Now().Add(200*time.Millisecond)))
	_, err = third.Read(make([]byte, 1))
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	require.True(t, ne.Timeout(), "the third connection was served: %v", err)

	require.NoError(t, held[0].Close())
	require.NoError(t, third.SetReadDeadline(time.Now().Add(testTimeout)))
	resp, err := http.ReadResponse(bufio.NewReader(third), nil)
	require.NoError(t, err, "served once one closed")
	resp.Body.Close()
}
