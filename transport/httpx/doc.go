// Package httpx holds the HTTP plumbing shared by the engine's HTTP
// transports (Streamable HTTP and the legacy HTTP+SSE transport): one tuned
// *http.Client for the whole engine, TLS settings built from plain options,
// authentication headers, and rendering of URLs and headers for logs
// without their secrets.
//
// # One client per engine
//
// Every session of an engine should share one client: its connection pool
// then serves all of them (with HTTP/2 many sessions to one server ride a
// single connection). NewClient sizes the pool for hundreds of sessions and
// bounds connection setup (dial, TLS handshake) and the wait for response
// headers, but sets no overall Client.Timeout: an event stream stays open
// for as long as the session lives, and calls have their own deadlines in
// the session.
//
// # Secrets
//
// Header values may hold credentials (Authorization, API keys, the
// Mcp-Session-Id that lets anyone act as the session) and URLs may carry
// them in their userinfo or query. Nothing in the HTTP transports puts
// either into a log record or an error: they use RedactURL and
// RedactHeader, and Scrubber to remove known secret values from text a
// server sent back (an error page may echo a request header).
package httpx
