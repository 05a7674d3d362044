package h2stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpengine/mcpengine/internal/testkit"
)

func TestManyStreamsShareOneConnectionEachInOrder(t *testing.T) {
	const streams, events = 40, 20
	base, _ := h2cServer(t, eventsHandler(events, true), 0)
	tr := newTestTransport(t, Options{})
	ctx := testCtx(t)

	var wg sync.WaitGroup
	// Every stream stays open until all are: a connection closes when its
	// last stream ends, and a stream that ended before a late one started
	// would make that one dial anew.
	var opened sync.WaitGroup
	opened.Add(streams)
	errs := make(chan error, streams)
	for range streams {
		wg.Add(1)
		go func() { // Owner: the test. Exits when its stream was read.
			defer wg.Done()
			resp, err := get(ctx, tr, base, "/events")
			opened.Done()
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			opened.Wait()
			if resp.ProtoMajor != 2 || resp.StatusCode != http.StatusOK {
				errs <- fmt.Errorf("proto %d status %d", resp.ProtoMajor, resp.StatusCode)
				return
			}
			got, err := readEvents(resp.Body, events)
			if err != nil {
				errs <- err
				return
			}
			for i, g := range got {
				if g != strconv.Itoa(i) {
					errs <- fmt.Errorf("event %d is %q", i, g)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := tr.dials.Load(); n != 1 {
		t.Fatalf("%d connections dialed, want 1", n)
	}
}

func TestNewConnectionWhenTheServerStreamLimitIsReached(t *testing.T) {
	base, _ := h2cServer(t, eventsHandler(1, true), 3)
	tr := newTestTransport(t, Options{})
	ctx := testCtx(t)
	bodies := openStreams(t, ctx, tr, base, 7)
	if n := tr.dials.Load(); n != 3 {
		t.Fatalf("%d connections dialed for 7 streams at 3 per connection, want 3", n)
	}
	for _, b := range bodies {
		_ = b.Close()
	}
	testkit.Eventually(t, 10*time.Second, func() bool { return tr.openConns() == 0 }, "connections left after every stream closed")
}

func TestUnreadStreamDoesNotStallTheOthers(t *testing.T) {
	big := make([]byte, 1<<20)
	mux := http.NewServeMux()
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(big) // blocks once the client's stream window is full
	})
	mux.HandleFunc("/events", eventsHandler(50, false))
	base, _ := h2cServer(t, mux, 0)
	tr := newTestTransport(t, Options{StreamWindow: 16 << 10})
	ctx := testCtx(t)

	stalled, err := get(ctx, tr, base, "/big")
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Body.Close()
	for range 5 {
		resp, err := get(ctx, tr, base, "/events")
		if err != nil {
			t.Fatal(err)
		}
		got, err := readEvents(resp.Body, 50)
		_ = resp.Body.Close()
		if err != nil || len(got) != 50 {
			t.Fatalf("the other stream got %d events: %v", len(got), err)
		}
	}
	// The unread stream still delivers everything once read.
	n, err := io.Copy(io.Discard, stalled.Body)
	if err != nil || n != int64(len(big)) {
		t.Fatalf("read %d of %d bytes of the stalled stream: %v", n, len(big), err)
	}
	if n := tr.dials.Load(); n != 1 {
		t.Fatalf("%d connections dialed, want 1", n)
	}
}

func TestTheConnectionWindowIsGivenBackWhileAStreamIsUnread(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/stalled", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(make([]byte, 1<<20)) // fills its stream window, then waits
	})
	mux.HandleFunc("/bulk", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(make([]byte, 1<<20)) // 16 times the connection's window
	})
	base, _ := h2cServer(t, mux, 0)
	tr := New(Options{StreamWindow: 16 << 10})
	tr.connWindow = 65535 // the protocol's initial window: no increment beyond it
	t.Cleanup(tr.Close)
	ctx := testCtx(t)

	stalled, err := get(ctx, tr, base, "/stalled")
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Body.Close()
	bulk, err := get(ctx, tr, base, "/bulk")
	if err != nil {
		t.Fatal(err)
	}
	defer bulk.Body.Close()
	if n, err := io.Copy(io.Discard, bulk.Body); err != nil || n != 1<<20 {
		t.Fatalf("read %d bytes of the bulk stream beside an unread one: %v", n, err)
	}
}

func TestServerResetFailsOnlyThatStream(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/abort", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // net/http resets the stream
	})
	mux.HandleFunc("/events", func(w http.ResponseWriter, r *http.Request) {
		eventsHandler(1, false)(w, r)
		<-r.Context().Done()
	})
	base, _ := h2cServer(t, mux, 0)
	tr := newTestTransport(t, Options{})
	ctx := testCtx(t)

	live, err := get(ctx, tr, base, "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Body.Close()
	if _, err := readEvents(live.Body, 1); err != nil {
		t.Fatal(err)
	}
	resp, err := get(ctx, tr, base, "/abort")
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	var rst *StreamResetError
	if !errors.As(err, &rst) {
		t.Fatalf("the reset stream ended with %v, want a *StreamResetError", err)
	}
	// The other stream and the connection go on.
	again, err := get(ctx, tr, base, "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer again.Body.Close()
	if _, err := readEvents(again.Body, 1); err != nil {
		t.Fatal(err)
	}
	if n := tr.dials.Load(); n != 1 {
		t.Fatalf("%d connections dialed, want 1", n)
	}
}

func TestServerDeathFailsEveryStream(t *testing.T) {
	base, srv := h2cServer(t, eventsHandler(1, true), 0)
	tr := newTestTransport(t, Options{})
	ctx := testCtx(t)
	bodies := openStreams(t, ctx, tr, base, 5)
	_ = srv.Close() // closes the connection under the streams
	for i, b := range bodies {
		_, err := io.Copy(io.Discard, b)
		if !isConnError(err) {
			t.Fatalf("stream %d ended with %v, want a *ConnError", i, err)
		}
		_ = b.Close()
	}
	testkit.Eventually(t, 10*time.Second, func() bool { return tr.openConns() == 0 }, "the dead connection stayed in the pool")
}

func TestCancelledContextEndsTheStreamOnBothSides(t *testing.T) {
	ended := make(chan struct{})
	base, _ := h2cServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		eventsHandler(1, true)(w, r)
		close(ended)
	}), 0)
	tr := newTestTransport(t, Options{})
	ctx, cancel := context.WithCancel(testCtx(t))
	resp, err := get(ctx, tr, base, "/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readEvents(resp.Body, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := io.Copy(io.Discard, resp.Body); !errors.Is(err, context.Canceled) {
		t.Fatalf("read after cancel: %v, want context.Canceled", err)
	}
	_ = resp.Body.Close()
	select {
	case <-ended: // the server saw RST_STREAM
	case <-testCtx(t).Done():
		t.Fatal("the server's handler did not see the stream end")
	}
	testkit.Eventually(t, 10*time.Second, func() bool { return tr.openConns() == 0 }, "the idle connection was not closed")
}

func TestRequestBodyAndHeadersReachTheServer(t *testing.T) {
	type seen struct {
		body, auth, ct string
		length         int64
	}
	got := make(chan seen, 1)
	base, _ := h2cServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{string(b), r.Header.Get("Authorization"), r.Header.Get("Content-Type"), r.ContentLength}
		w.WriteHeader(http.StatusAccepted)
	}), 0)
	tr := newTestTransport(t, Options{})
	body := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen"}`
	req, _ := http.NewRequestWithContext(testCtx(t), http.MethodPost, base+"/mcp?x=1", stringsReader(body))
	req.Header.Set("Authorization", "Bearer secret")
	req.Header.Set("Content-Type", "application/json")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("status %d", resp.StatusCode)
	}
	s := <-got
	if s.body != body || s.auth != "Bearer secret" || s.ct != "application/json" || s.length != int64(len(body)) {
		t.Fatalf("the server saw %+v", s)
	}
}

func TestTLSNegotiatesH2AndFallsBackWithoutIt(t *testing.T) {
	h := eventsHandler(2, false)
	srv, cfg := tlsServer(t, h, true)
	tr := newTestTransport(t, Options{TLS: cfg})
	resp, err := get(testCtx(t), tr, srv.URL, "/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readEvents(resp.Body, 2); err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Fatalf("proto %d, want 2", resp.ProtoMajor)
	}

	h1, cfg1 := tlsServer(t, h, false)
	fallback := &http.Transport{TLSClientConfig: cfg1}
	t.Cleanup(fallback.CloseIdleConnections)
	tr1 := newTestTransport(t, Options{TLS: cfg1, Fallback: fallback})
	resp, err = get(testCtx(t), tr1, h1.URL, "/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readEvents(resp.Body, 2); err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.ProtoMajor != 1 {
		t.Fatalf("proto %d over the HTTP/1.1-only server, want 1 (the fallback)", resp.ProtoMajor)
	}
}

func TestGracefulShutdownLetsOpenStreamsFinishAndNewOnesDialAgain(t *testing.T) {
	release := make(chan struct{})
	base, srv := h2cServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		eventsHandler(1, false)(w, r)
		select {
		case <-release:
		case <-r.Context().Done():
		}
		_, _ = io.WriteString(w, "data: last\n\n")
	}), 0)
	tr := newTestTransport(t, Options{})
	ctx := testCtx(t)
	resp, err := get(ctx, tr, base, "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := readEvents(resp.Body, 1); err != nil {
		t.Fatal(err)
	}
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(ctx) }() // Owner: the test. Exits once the open stream ended.
	// GOAWAY arrives: the connection takes no new stream.
	testkit.Eventually(t, 10*time.Second, func() bool { return tr.openConns() == 0 }, "the connection stayed in the pool after GOAWAY")
	close(release)
	got, err := readEvents(resp.Body, 1)
	if err != nil || got[0] != "last" {
		t.Fatalf("the stream below GOAWAY's last id got %v, %v", got, err)
	}
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
}
