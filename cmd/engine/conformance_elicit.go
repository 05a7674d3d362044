package main

import (
	"context"

	"github.com/mcpengine/mcpengine/messages"
)

// acceptElicitationDefaults answers a form elicitation the way a user who
// confirms a pre-filled form would: accept, with every field that has a
// default set to it (SEP-1034: clients should pre-populate forms with the
// schema's defaults). Fields without a default are left out, which the
// specification allows for optional fields. URL-mode elicitations are
// declined: a command line has no browser to send the user to.
func acceptElicitationDefaults(_ context.Context, req *messages.ElicitParams) (*messages.ElicitResult, error) {
	if req.Mode == messages.ElicitModeURL {
		return &messages.ElicitResult{Action: messages.ElicitActionDecline}, nil
	}
	return &messages.ElicitResult{Action: messages.ElicitActionAccept, Content: schemaDefaults(req.RequestedSchema)}, nil
}

// schemaDefaults returns the default of each top-level property of an
// elicitation's requestedSchema (a flat object of primitives by the
// specification), and an empty object when there are none.
func schemaDefaults(schema messages.RawMessage) map[string]any {
	content := map[string]any{}
	var s struct {
		Properties map[string]struct {
			Default any `json:"default"`
		} `json:"properties"`
	}
	if len(schema) == 0 || messages.Unmarshal(schema, &s) != nil {
		return content
	}
	for name, p := range s.Properties {
		if p.Default != nil {
			content[name] = p.Default
		}
	}
	return content
}
