// Package httpserve holds what every MCP server endpoint of the project
// checks and answers the same way (the demo server's HTTP transports, the
// gateway, the Prometheus endpoint, engine serve): loopback rules, the
// Origin check against DNS rebinding, Accept and Content-Type rules,
// bounded bodies, and HTTP errors whose body is a JSON-RPC error.
package httpserve
