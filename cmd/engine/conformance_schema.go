package main

import (
	"context"
	"fmt"

	"github.com/mcpengine/mcpengine/messages"
)

// The tools of json-schema-2020-12-preservation: the focal tool whose
// inputSchema uses JSON Schema 2020-12 keywords, and the echo tool the
// client hands that schema back to.
const (
	schemaFocalTool = "json_schema_2020_12_tool"
	schemaEchoTool  = "json_schema_echo"
)

// echoToolSchema sends the focal tool's inputSchema, exactly as tools/list
// gave it, back through the echo tool: the scenario checks that nothing
// ($schema, $defs, additionalProperties, allOf/anyOf, if/then/else,
// $anchor) was lost in the client's parsing. The engine keeps a tool's
// inputSchema as raw JSON, so nothing is.
func echoToolSchema(ctx context.Context, r *conformanceRun) error {
	for _, t := range r.tools {
		if t.Name != schemaFocalTool {
			continue
		}
		return r.call(ctx, schemaEchoTool, map[string]any{"schema": messages.RawMessage(t.InputSchema)})
	}
	return fmt.Errorf("tools/list did not offer %s", schemaFocalTool)
}
