// Package oauthtest is the OAuth test kit shared by the oauth package, the
// engine, the gateway and the CLI tests: an authorization server, a
// protected resource server and an identity provider on loopback, real
// HTTP, checking what a strict server checks (PKCE, state round trip,
// redirect URI, client authentication, resource indicators) and recording
// what it received.
//
// The resource server guards any http.Handler (Config.Resource; a demo
// server's Streamable HTTP handler in the engine-level tests, a stub that
// answers every JSON-RPC request with an empty result otherwise) with the
// bearer-token check and the RFC 6750 challenges a client must cure.
// Tests drive it at run time: RevokeAccessTokens makes the next request
// need a refresh without waiting for an expiry, SetRejectAllTokens makes
// every token fail (a 401 no authorization cures), HoldRefreshes keeps
// the refresh grant waiting until a number of requests were refused, and
// counters say how many token requests of each grant arrived.
//
// Every token, secret and code the kit issues contains SecretMarker, and
// Secrets lists all secret material it issued or received, so a test can
// assert that none of it reaches a log, an error or a span.
//
// The package is for tests only: it is imported from _test.go files and
// never linked into the engine (deps_test.go checks the root package).
// It does not import the oauth package, so that package's own tests can
// use it.
package oauthtest
