// Command engine is the mcpengine command line: it talks to MCP servers
// (list, call, read, prompt, ping), load-tests them (load), and runs the
// embedded demo server over stdio (serve).
package main
