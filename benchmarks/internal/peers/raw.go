package peers

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mcpengine/mcpengine/messages"
)

// The raw client is the least a correct client can do: newline-delimited
// JSON-RPC over the child's pipes, one write system call per request under
// a mutex, a pending map from id to a one-shot channel, a single reader
// goroutine decoding the envelope, and the caller decoding the result into
// a typed struct. It encodes the caller's arguments (a map) per call like a
// library would, builds the envelope by appending, and does the initialize
// handshake by hand (rawhttp.go: the same over Streamable HTTP). It has no timeouts, no cancellation, no reconnects.
//
// raw uses encoding/json for every encode and decode; raw-sonic uses
// mcpengine's exported codec (messages.Marshal/Unmarshal, sonic), so the
// difference between raw-sonic and mcpengine is the engine's machinery
// rather than its JSON library.
type rawClient struct {
	codec codec
	cmd   *exec.Cmd
	stdin io.WriteCloser

	wmu  sync.Mutex
	wbuf []byte

	nextID  atomic.Int64
	pmu     sync.Mutex
	pending map[int64]chan rawResponse
	readErr error // set before the reader closes done
	done    chan struct{}
}

type codec struct {
	marshal   func(any) ([]byte, error)
	unmarshal func([]byte, any) error
}

var (
	stdCodec   = codec{json.Marshal, json.Unmarshal}
	sonicCodec = codec{messages.Marshal, messages.Unmarshal}
)

type rawEnvelope struct {
	ID     *int64          `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *rawError       `json:"error"`
}

type rawError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rawError) Error() string { return fmt.Sprintf("rpc error %d: %s", e.Code, e.Message) }

type rawResponse struct {
	result json.RawMessage
	err    error
}

type rawCallParams struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

type rawCallResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

// rawLib opens raw sessions: a child per session over stdio, POSTs through
// one shared http.Client over HTTP.
type rawLib struct {
	t     Target
	codec codec
	hc    *http.Client
}

func newRawStd(t Target) Library   { return newRawLib(t, stdCodec) }
func newRawSonic(t Target) Library { return newRawLib(t, sonicCodec) }

func newRawLib(t Target, cd codec) Library {
	l := &rawLib{t: t, codec: cd}
	if t.URL != "" {
		l.hc = newHTTPClient()
	}
	return l
}

func (l *rawLib) Open(ctx context.Context) (Client, error) {
	if l.t.URL != "" {
		return dialRawHTTP(ctx, l.hc, l.codec, l.t.URL)
	}
	return dialRaw(ctx, l.codec, l.t.Command, l.t.Args)
}

func (l *rawLib) Close() error {
	if l.hc != nil {
		closeHTTPClient(l.hc)
	}
	return nil
}

// initializeParams are the raw loops' initialize params.
func initializeParams(cd codec) ([]byte, error) {
	return cd.marshal(map[string]any{
		"protocolVersion": Legacy,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "raw", "version": "1.0.0"},
	})
}

// checkInitialize decodes the initialize result and checks its version.
func checkInitialize(cd codec, raw json.RawMessage) error {
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := cd.unmarshal(raw, &res); err != nil {
		return err
	}
	return checkVersion(Target{Version: Legacy}, res.ProtocolVersion)
}

// decodeEcho decodes a tools/call result and checks it.
func decodeEcho(cd codec, raw json.RawMessage) error {
	var res rawCallResult
	if err := cd.unmarshal(raw, &res); err != nil {
		return err
	}
	if res.IsError || len(res.Content) == 0 {
		return errBadEcho
	}
	return checkEcho(res.Content[0].Text)
}

func dialRaw(ctx context.Context, cd codec, command string, args []string) (Client, error) {
	cmd := exec.Command(command, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &rawClient{
		codec:   cd,
		cmd:     cmd,
		stdin:   stdin,
		pending: map[int64]chan rawResponse{},
		done:    make(chan struct{}),
	}
	go c.readLoop(stdout)

	params, err := initializeParams(cd)
	if err == nil {
		var raw json.RawMessage
		if raw, err = c.roundTrip(ctx, "initialize", params); err == nil {
			err = checkInitialize(cd, raw)
		}
	}
	if err == nil {
		err = c.write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	}
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

func (c *rawClient) Echo(ctx context.Context) error {
	params, err := c.codec.marshal(rawCallParams{Name: "echo", Arguments: map[string]any{"text": EchoText}})
	if err != nil {
		return err
	}
	raw, err := c.roundTrip(ctx, "tools/call", params)
	if err != nil {
		return err
	}
	return decodeEcho(c.codec, raw)
}

func (c *rawClient) roundTrip(ctx context.Context, method string, params []byte) (json.RawMessage, error) {
	id := c.nextID.Add(1)
	ch := make(chan rawResponse, 1)
	c.pmu.Lock()
	c.pending[id] = ch
	c.pmu.Unlock()

	c.wmu.Lock()
	b := append(c.wbuf[:0], `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"`...)
	b = append(b, method...)
	b = append(b, `","params":`...)
	b = append(b, params...)
	b = append(b, "}\n"...)
	c.wbuf = b
	_, err := c.stdin.Write(b)
	c.wmu.Unlock()
	if err != nil {
		c.forget(id)
		return nil, err
	}
	select {
	case r := <-ch:
		return r.result, r.err
	case <-c.done:
		c.forget(id)
		return nil, c.readErr
	case <-ctx.Done():
		c.forget(id)
		return nil, ctx.Err()
	}
}

func (c *rawClient) forget(id int64) {
	c.pmu.Lock()
	delete(c.pending, id)
	c.pmu.Unlock()
}

func (c *rawClient) write(b []byte) error {
	c.wmu.Lock()
	_, err := c.stdin.Write(b)
	c.wmu.Unlock()
	return err
}

// readLoop is the single reader: it splits lines, decodes the envelope and
// hands the result to the waiting caller.
func (c *rawClient) readLoop(r io.Reader) {
	br := bufio.NewReader(r) // longer lines are joined below
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil {
			c.readErr = fmt.Errorf("raw: reading: %w", err)
			close(c.done)
			return
		}
		var env rawEnvelope
		if c.codec.unmarshal(line, &env) != nil || env.ID == nil {
			continue // not JSON, or a notification or server request: ignored
		}
		c.pmu.Lock()
		ch, ok := c.pending[*env.ID]
		delete(c.pending, *env.ID)
		c.pmu.Unlock()
		if !ok {
			continue
		}
		if env.Error != nil {
			ch <- rawResponse{err: env.Error}
		} else {
			ch <- rawResponse{result: env.Result}
		}
	}
}

func (c *rawClient) Close() error {
	_ = c.stdin.Close() // the server exits at EOF, so the reader sees EOF
	<-c.done
	return c.cmd.Wait()
}
