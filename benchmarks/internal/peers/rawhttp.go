package peers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
)

// rawHTTPClient is the raw loop over Streamable HTTP, the least a correct
// client does: one POST per request through a shared http.Client, the
// session id and protocol version headers, JSON answers read whole (the
// benchmark server answers JSON, never SSE), no GET stream, no retries.
// The caller's goroutine does the whole round trip, so there is no
// pending map and no goroutine of its own.
type rawHTTPClient struct {
	hc        *http.Client
	codec     codec
	url       string
	sessionID string
	nextID    atomic.Int64
}

func dialRawHTTP(ctx context.Context, hc *http.Client, cd codec, url string) (Client, error) {
	c := &rawHTTPClient{hc: hc, codec: cd, url: url}
	params, err := initializeParams(cd)
	if err != nil {
		return nil, err
	}
	raw, hdr, err := c.post(ctx, c.request("initialize", params))
	if err != nil {
		return nil, err
	}
	c.sessionID = hdr.Get("Mcp-Session-Id")
	if err := checkInitialize(cd, raw); err != nil {
		return nil, err
	}
	if _, _, err := c.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *rawHTTPClient) request(method string, params []byte) []byte {
	b := append([]byte(nil), `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, c.nextID.Add(1), 10)
	b = append(b, `,"method":"`...)
	b = append(b, method...)
	b = append(b, `","params":`...)
	b = append(b, params...)
	return append(b, '}')
}

func (c *rawHTTPClient) Echo(ctx context.Context) error {
	params, err := c.codec.marshal(rawCallParams{Name: "echo", Arguments: map[string]any{"text": EchoText}})
	if err != nil {
		return err
	}
	raw, _, err := c.post(ctx, c.request("tools/call", params))
	if err != nil {
		return err
	}
	return decodeEcho(c.codec, raw)
}

// post sends one message and returns the result of its answer (nil for a
// notification's 202) and the answer's headers.
func (c *rawHTTPClient) post(ctx context.Context, body []byte) (json.RawMessage, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", Legacy)
	if c.sessionID != "" {
		req.Header.Set("Mcp-Session-Id", c.sessionID)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case resp.StatusCode == http.StatusAccepted:
		return nil, resp.Header, nil
	case resp.StatusCode != http.StatusOK:
		return nil, nil, fmt.Errorf("raw http: %s: %s", resp.Status, bytes.TrimSpace(data))
	}
	var env rawEnvelope
	if err := c.codec.unmarshal(data, &env); err != nil {
		return nil, nil, err
	}
	if env.Error != nil {
		return nil, nil, env.Error
	}
	return env.Result, resp.Header, nil
}

// Close ends the session on the server (DELETE with its id).
func (c *rawHTTPClient) Close() error {
	req, err := http.NewRequest(http.MethodDelete, c.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Mcp-Session-Id", c.sessionID)
	req.Header.Set("Mcp-Protocol-Version", Legacy)
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}
