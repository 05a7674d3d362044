// Package schemacheck validates JSON-RPC frames and MCP results against the
// official JSON schema of each protocol version. It is a test helper: the
// engine itself validates only the envelope (messages.DecodeFrame), and
// other packages' tests use this to prove that what they send is what the
// specification allows in the negotiated version.
//
// The schemas are copies of the specification's schema.json files, embedded
// so that tests need no network or checkout-relative paths. Definitions are
// looked up in the schema itself (by each definition's method constant), so
// a method is known to a version exactly when that version's schema
// defines it.
package schemacheck
