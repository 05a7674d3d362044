// Package mcpengine is a client engine for the Model Context Protocol that
// holds many concurrent sessions at once and keeps each alive by itself.
//
// Every server connection is a supervised session actor: it owns its
// pending requests and lifecycle, restarts its transport with backoff when
// the server dies, re-initializes, replays subscriptions, and fails every
// in-flight call at once with a typed error so no caller hangs. Callers use
// plain blocking methods (Session.CallTool, ListTools, ReadResource …),
// iterators over paginated lists (Session.Tools …), or typed futures
// (CallToolAsync returns a Future[*messages.CallToolResult]). Call options
// set a request's timeout, progress callback, _meta members (WithMeta) and
// HTTP headers (WithHeader).
//
// Everything an embedder uses is named in this package: its errors (match
// them with errors.Is/As) and session states, declared once in the leaf
// packages mcperr and mcpstate and re-exported here under the same names,
// and the Stats snapshot. Package actors, which runs the sessions, is
// internal to the engine.
//
//	eng := mcpengine.New(mcpengine.Config{})
//	defer eng.Close(ctx)
//	s, err := eng.Connect(ctx, mcpengine.SessionConfig{
//		Name:   "files",
//		Server: mcpengine.ServerConfig{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}},
//	})
//	tools, err := s.ListTools(ctx)
//
// See docs/ARCHITECTURE.md for the actors, their messages and the path of
// one call.
package mcpengine
