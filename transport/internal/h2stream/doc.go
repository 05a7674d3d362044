// Package h2stream is a small HTTP/2 client for the engine's requests to
// servers that speak HTTP/2: the calls' POSTs, and the long-lived response
// streams (the Streamable HTTP GET stream, the 2026-07-28
// subscriptions/listen POST) whose answers stay open for a session's life.
//
// net/http's HTTP/2 client spends a goroutine per request in flight and
// per open stream (it waits for the stream's end), and about 2.5 KB of
// state per request. Here one goroutine per connection (the read loop)
// reads every frame and hands each stream's headers and DATA to that
// stream; the goroutine that sent the request waits for its headers and
// then reads its body. A request costs no goroutine, no timer and a few
// hundred bytes.
//
// One connection per origin carries streams up to the server's
// MAX_CONCURRENT_STREAMS; another is dialed when every one is full. A
// connection left without streams is closed after Options.IdleTimeout, so
// an engine that sends and listens to nothing soon holds no descriptor.
//
// Flow control, receiving: each stream's receive window (StreamWindow)
// bounds what its body buffers; the window is given back as the body is
// read, so a reader that stops holds back its own stream only. The
// connection's window is given back as soon as the read loop has buffered
// the data. Sending: a request body goes with its headers as far as the
// server's windows allow, and the rest as they open.
//
// Response headers late by Options.ResponseHeaderTimeout fail their
// stream; all of a connection's waits share one timer, since they expire
// in the order their requests were sent.
//
// Transport is an http.RoundTripper, so that whatever wraps the net/http
// transport today (OAuth's Authorizer, Config.OnHTTPRequest) wraps it the
// same way; httpx routes every request that can go over HTTP/2 to it.
package h2stream
