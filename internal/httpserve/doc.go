// Package httpserve holds what every MCP server endpoint of the project
// checks and answers the same way (the demo server's HTTP transports, the
// gateway, the Prometheus endpoint, engine serve): loopback rules, the
// Origin check against DNS rebinding, Accept and Content-Type rules,
// bounded bodies, HTTP errors whose body is a JSON-RPC error, the
// text/event-stream format, and an http.Server run on its own listener
// until Close.
package httpserve
