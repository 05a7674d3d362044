package gateway_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/gateway"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

// scriptedServer is an in-process server (over transport/memory) that
// does what the demo server cannot: its sampling request asks for
// progress, and it cancels one. Tools:
//
//	ask      sends sampling/createMessage (id 100, progressToken
//	         "srv-tok") and answers with the sampled text
//	abandon  sends sampling/createMessage (id 200), then cancels it
//	finish   answers itself and the pending abandon call
//
// It reports the client progress it receives on progress.
func scriptedServer(progress chan<- string) transport.Dialer {
	return memory.NewDialer("scripted", func(c transport.Conn) {
		write := func(frame string) { _ = c.WriteFrames([]byte(frame)) }
		var askID, abandonID messages.RawMessage
		for {
			f, err := c.ReadFrame()
			if err != nil {
				return // the client closed
			}
			m, err := messages.DecodeMessage(f)
			if err != nil {
				continue
			}
			id := string(m.ID.AppendJSON(nil))
			switch {
			case m.Method == messages.MethodInitialize:
				write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"1"}}}`)
			case m.Method == messages.MethodToolsList:
				write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[{"name":"ask","inputSchema":{"type":"object"}},{"name":"abandon","inputSchema":{"type":"object"}},{"name":"finish","inputSchema":{"type":"object"}}]}}`)
			case m.Method == messages.MethodToolsCall:
				var p struct {
					Name string `json:"name"`
				}
				_ = messages.Unmarshal(m.Params, &p)
				switch p.Name {
				case "ask":
					askID = messages.RawMessage(id)
					write(`{"jsonrpc":"2.0","id":100,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"q"}}],"maxTokens":10,"_meta":{"progressToken":"srv-tok"}}}`)
				case "abandon":
					abandonID = messages.RawMessage(id)
					write(`{"jsonrpc":"2.0","id":200,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"q"}}],"maxTokens":10}}`)
					write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":200,"reason":"changed my mind"}}`)
				case "finish":
					write(`{"jsonrpc":"2.0","id":` + string(abandonID) + `,"result":{"content":[{"type":"text","text":"abandoned"}]}}`)
					write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"finished"}]}}`)
				}
			case m.Method == messages.NotificationProgress:
				progress <- string(m.Params)
			case m.Kind == messages.KindResponse && id == "100":
				var r struct {
					Content struct {
						Text string `json:"text"`
					} `json:"content"`
				}
				_ = messages.Unmarshal(m.Result, &r)
				write(`{"jsonrpc":"2.0","id":` + string(askID) + `,"result":{"content":[{"type":"text","text":` + string(messages.AppendJSONString(nil, "sampled: "+r.Content.Text)) + `}]}}`)
			}
		}
	})
}

// sseEvents reads the JSON-RPC messages of an event stream one by one.
type sseEvents struct {
	t  *testing.T
	sc *bufio.Scanner
}

func (e *sseEvents) next() map[string]json.RawMessage {
	e.t.Helper()
	var data strings.Builder
	for e.sc.Scan() {
		line := e.sc.Text()
		if rest, ok := strings.CutPrefix(line, "data: "); ok {
			data.WriteString(rest)
			continue
		}
		if line == "" && data.Len() > 0 {
			var m map[string]json.RawMessage
			require.NoError(e.t, json.Unmarshal([]byte(data.String()), &m), data.String())
			return m
		}
	}
	e.t.Fatalf("the stream ended: %v", e.sc.Err())
	return nil
}

// postStream POSTs a request that is answered with an event stream.
func postStream(t *testing.T, url, body string, hdr []string) *sseEvents {
	t.Helper()
	req, err := http.NewRequestWithContext(testCtx(t, 30*time.Second), http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(hdr[0], hdr[1])
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	return &sseEvents{t: t, sc: bufio.NewScanner(resp.Body)}
}

func TestServerRequestsCarryProgressAndCancellationBothWays(t *testing.T) {
	progress := make(chan string, 4)
	_, gw := startGateway(t, gateway.Config{Servers: map[string]gateway.Server{"s": {Dialer: scriptedServer(progress)}}})
	hdr := rawFrontSession(t, gw, "", `{"sampling":{}}`)

	// The server's sampling request reaches the client on the call's
	// stream, with a token of the gateway's in place of the server's.
	ev := postStream(t, gw.MCPURL(), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"s__ask","arguments":{}}}`, hdr)
	req := ev.next()
	require.Equal(t, `"sampling/createMessage"`, string(req["method"]))
	var params struct {
		Meta struct {
			ProgressToken string `json:"progressToken"`
		} `json:"_meta"`
	}
	require.NoError(t, json.Unmarshal(req["params"], &params))
	tok := params.Meta.ProgressToken
	assert.True(t, strings.HasPrefix(tok, "mcpengine-gateway-"), tok)

	// The client's progress on it reaches the server under its own token.
	status, _, _ := post(t, gw.MCPURL(), "", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"`+tok+`","progress":1,"total":2}}`, hdr...)
	require.Equal(t, http.StatusAccepted, status)
	select {
	case p := <-progress:
		assert.JSONEq(t, `{"progressToken":"srv-tok","progress":1,"total":2}`, p)
	case <-time.After(10 * time.Second):
		t.Fatal("the server got no progress")
	}

	status, _, _ = post(t, gw.MCPURL(), "", `{"jsonrpc":"2.0","id":`+string(req["id"])+`,"result":{"role":"assistant","content":{"type":"text","text":"from the client"},"model":"m"}}`, hdr...)
	require.Equal(t, http.StatusAccepted, status)
	res := ev.next()
	assert.Equal(t, `1`, string(res["id"]))
	assert.Contains(t, string(res["result"]), "sampled: from the client")

	// The server cancels its request: the client is told, on the stream
	// that carried the request.
	ev = postStream(t, gw.MCPURL(), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"s__abandon","arguments":{}}}`, hdr)
	req = ev.next()
	require.Equal(t, `"sampling/createMessage"`, string(req["method"]))
	cancel := ev.next()
	require.Equal(t, `"notifications/cancelled"`, string(cancel["method"]))
	var cp struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	require.NoError(t, json.Unmarshal(cancel["params"], &cp))
	assert.Equal(t, string(req["id"]), string(cp.RequestID), "the request the client was sent, by the id it was sent under")

	_, body, _ := post(t, gw.MCPURL(), "", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"s__finish","arguments":{}}}`, hdr...)
	assert.Contains(t, string(body), "finished")
	assert.Contains(t, string(ev.next()["result"]), "abandoned")
}
