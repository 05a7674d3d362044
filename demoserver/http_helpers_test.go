package demoserver

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

// httpHarness is a Server behind the combined handler on an httptest
// server. Cleanup closes the handler first (ending open streams), then the
// test server.
type httpHarness struct {
	t   *testing.T
	srv *Server
	h   *HTTPHandler
	ts  *httptest.Server
}

func startHTTP(t *testing.T, opts Options, ho HTTPOptions) *httpHarness {
	t.Helper()
	srv := New(opts)
	h := srv.HTTPHandler(ho)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		require.NoError(t, h.Close(ctx))
		ts.Close()
	})
	return &httpHarness{t: t, srv: srv, h: h, ts: ts}
}

// do sends one HTTP request; its context ends with the test's timeout.
func (hh *httpHarness) do(method, path string, body []byte, header http.Header) *http.Response {
	hh.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	hh.t.Cleanup(cancel)
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, hh.ts.URL+path, rd)
	require.NoError(hh.t, err)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := hh.ts.Client().Do(req)
	require.NoError(hh.t, err)
	hh.t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// mcpHTTP is a raw Streamable HTTP client: it builds requests by hand and
// leaves every response to the test to check.
type mcpHTTP struct {
	hh      *httpHarness
	session string
	version string // sent as Mcp-Protocol-Version once set
	nextID  atomic.Int64
}

func (hh *httpHarness) client() *mcpHTTP { return &mcpHTTP{hh: hh} }

func (c *mcpHTTP) headers() http.Header {
	h := http.Header{}
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Content-Type", "application/json")
	if c.session != "" {
		h.Set(HeaderSessionID, c.session)
	}
	if c.version != "" {
		h.Set(HeaderProtocolVersion, c.version)
	}
	return h
}

// post POSTs a body to the MCP endpoint.
func (c *mcpHTTP) post(body []byte) *http.Response {
	c.hh.t.Helper()
	return c.hh.do(http.MethodPost, PathStreamable, body, c.headers())
}

// postAsync POSTs a body on another goroutine (for a request that is
// answered only after the test does something else); the result arrives
// on the channel.
func (c *mcpHTTP) postAsync(body []byte) <-chan asyncResponse {
	c.hh.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	c.hh.t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.hh.ts.URL+PathStreamable, bytes.NewReader(body))
	require.NoError(c.hh.t, err)
	req.Header = c.headers()
	out := make(chan asyncResponse, 1)
	client := c.hh.ts.Client()
	// Owner: the test. Exits when the response headers arrive or the
	// request's context times out.
	go func() {
		resp, err := client.Do(req)
		out <- asyncResponse{resp, err}
	}()
	return out
}

type asyncResponse struct {
	resp *http.Response
	err  error
}

// await returns the response, closing its body at cleanup.
func (c *mcpHTTP) await(ch <-chan asyncResponse) *http.Response {
	c.hh.t.Helper()
	a := <-ch
	require.NoError(c.hh.t, a.err)
	c.hh.t.Cleanup(func() { _ = a.resp.Body.Close() })
	return a.resp
}

// request builds a request frame with the next id.
func (c *mcpHTTP) request(method string, params any) (messages.ID, []byte) {
	id := messages.NumberID(c.nextID.Add(1))
	return id, messages.AppendRequest(nil, id, method, encodeParams(c.hh.t, params))
}

// send POSTs a request and returns its id and the HTTP response.
func (c *mcpHTTP) send(method string, params any) (messages.ID, *http.Response) {
	c.hh.t.Helper()
	id, frame := c.request(method, params)
	return id, c.post(frame)
}

// notify POSTs a notification and requires 202.
func (c *mcpHTTP) notify(method string, params any) {
	c.hh.t.Helper()
	resp := c.post(messages.AppendNotification(nil, method, encodeParams(c.hh.t, params)))
	require.Equal(c.hh.t, http.StatusAccepted, resp.StatusCode)
}

// initialize runs the handshake and keeps the session id and version.
func (c *mcpHTTP) initialize(version string) messages.InitializeResult {
	c.hh.t.Helper()
	t := c.hh.t
	_, resp := c.send(messages.MethodInitialize, &messages.InitializeParams{
		ProtocolVersion: version,
		Capabilities: messages.ClientCapabilities{
			Roots:    &messages.RootsCapability{ListChanged: true},
			Sampling: &messages.SamplingCapability{},
		},
		ClientInfo: messages.Implementation{Name: "http-test", Version: "0"},
	})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	c.session = resp.Header.Get(HeaderSessionID)
	require.NotEmpty(t, c.session)
	m := readAnswer(t, resp)
	require.Nil(t, m.Error)
	var res messages.InitializeResult
	require.NoError(t, messages.Unmarshal(m.Result, &res))
	c.version = res.ProtocolVersion
	c.notify(messages.NotificationInitialized, nil)
	return res
}

// call sends a request and returns its response, read from a JSON or an
// SSE answer (whose other messages must be none).
func (c *mcpHTTP) call(method string, params any) messages.Message {
	c.hh.t.Helper()
	t := c.hh.t
	id, resp := c.send(method, params)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	m := readAnswer(t, resp)
	require.Equal(t, messages.KindResponse, m.Kind)
	require.Equal(t, id, m.ID)
	return m
}

// readAnswer reads the one message of a JSON answer or of an SSE answer
// (priming events aside).
func readAnswer(t testing.TB, resp *http.Response) messages.Message {
	t.Helper()
	if !isSSE(resp) {
		return readJSON(t, resp)
	}
	evs := readAllEvents(t, resp)
	var msgs []messages.Message
	for _, e := range evs {
		if e.data != "" {
			msgs = append(msgs, decodeOne(t, e.data))
		}
	}
	require.Len(t, msgs, 1, "events: %+v", evs)
	return msgs[0]
}

// tool calls a tool and decodes its result.
func (c *mcpHTTP) tool(name string, args any) messages.CallToolResult {
	c.hh.t.Helper()
	m := c.call(messages.MethodToolsCall, &messages.CallToolParams{Name: name, Arguments: args})
	require.Nil(c.hh.t, m.Error)
	var res messages.CallToolResult
	require.NoError(c.hh.t, messages.Unmarshal(m.Result, &res))
	return res
}

// get opens a GET stream (lastEventID resumes one).
func (c *mcpHTTP) get(lastEventID string) *http.Response {
	c.hh.t.Helper()
	h := c.headers()
	h.Set("Accept", "text/event-stream")
	h.Del("Content-Type")
	if lastEventID != "" {
		h.Set(HeaderLastEventID, lastEventID)
	}
	return c.hh.do(http.MethodGet, PathStreamable, nil, h)
}

func (c *mcpHTTP) delete() *http.Response {
	c.hh.t.Helper()
	h := c.headers()
	h.Del("Content-Type")
	return c.hh.do(http.MethodDelete, PathStreamable, nil, h)
}

func isSSE(resp *http.Response) bool {
	return strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
}

func readJSON(t testing.TB, resp *http.Response) messages.Message {
	t.Helper()
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return decodeOne(t, string(body))
}

func decodeOne(t testing.TB, s string) messages.Message {
	t.Helper()
	m, err := messages.DecodeMessage([]byte(s))
	require.NoError(t, err, s)
	return m
}

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	id, event, data string
	retry           int // milliseconds, -1 if absent
}

// sseReader parses a text/event-stream body.
type sseReader struct {
	br *bufio.Reader
}

func newSSEReader(resp *http.Response) *sseReader {
	return &sseReader{br: bufio.NewReader(resp.Body)}
}

// next returns the next event; io.EOF at the end of the stream (a body
// cut short returns another error).
func (r *sseReader) next() (sseEvent, error) {
	e := sseEvent{retry: -1}
	var data []string
	seen := false
	for {
		line, err := r.br.ReadString('\n')
		if err != nil {
			if err == io.EOF && line == "" && !seen {
				return e, io.EOF
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return e, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if !seen {
				continue
			}
			e.data = strings.Join(data, "\n")
			return e, nil
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		seen = true
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			e.id = value
		case "event":
			e.event = value
		case "data":
			data = append(data, value)
		case "retry":
			e.retry, _ = strconv.Atoi(value)
		}
	}
}

// mustNext returns the next event, failing the test at the end of stream.
func (r *sseReader) mustNext(t testing.TB) sseEvent {
	t.Helper()
	e, err := r.next()
	require.NoError(t, err)
	return e
}

// mustMessage returns the next event's message, skipping priming events.
func (r *sseReader) mustMessage(t testing.TB) (sseEvent, messages.Message) {
	t.Helper()
	for {
		e := r.mustNext(t)
		if e.data == "" {
			continue
		}
		return e, decodeOne(t, e.data)
	}
}

// readAllEvents reads a stream to its clean end.
func readAllEvents(t testing.TB, resp *http.Response) []sseEvent {
	t.Helper()
	r := newSSEReader(resp)
	var out []sseEvent
	for {
		e, err := r.next()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		out = append(out, e)
	}
}
