// Package configcheck finds what a JSON decoder does not say about a
// hand-written configuration file: where a syntax or type error is (line,
// column and the line itself, not a byte offset), and which object keys
// the configuration's Go types do not have, with the field the user
// probably meant. The mcpServers loader and the gateway's loader use it;
// the decoding itself stays theirs.
package configcheck
