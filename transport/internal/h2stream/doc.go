// Package h2stream is a small HTTP/2 client for long-lived response
// streams: the Streamable HTTP GET stream and the 2026-07-28
// subscriptions/listen POST, whose answers stay open for a session's life.
//
// net/http's HTTP/2 client spends a goroutine per open stream (it waits
// for the stream's end), so a listening session cost two goroutines: the
// transport's reader and net/http's. Here one goroutine per connection
// (the read loop) reads every frame and hands each stream's DATA to that
// stream's body; the body's reader (the transport's listener) is the only
// goroutine a stream has.
//
// One connection per origin carries streams up to the server's
// MAX_CONCURRENT_STREAMS; another is dialed when every one is full. A
// connection is closed as soon as its last stream ends, so an engine that
// listens to nothing holds no descriptor here.
//
// Flow control: each stream's receive window (StreamWindow) bounds what
// its body buffers; the window is given back as the body is read, so a
// reader that stops holds back its own stream only. The connection's
// window is given back as soon as the read loop has buffered the data.
//
// Transport is an http.RoundTripper, so that whatever wraps the net/http
// transport today (OAuth's Authorizer, Config.OnHTTPRequest) wraps it the
// same way; httpx routes only requests marked long-lived to it.
package h2stream
