package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

func TestElicitationIsAcceptedWithTheSchemaDefaults(t *testing.T) {
	// The form of the suite's elicitation-sep1034-client-defaults scenario.
	schema := messages.RawMessage(`{"type":"object","properties":{
		"name":{"type":"string","default":"John Doe"},
		"age":{"type":"integer","default":30},
		"score":{"type":"number","default":95.5},
		"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},
		"verified":{"type":"boolean","default":true},
		"nickname":{"type":"string"}},"required":[]}`)
	res, err := acceptElicitationDefaults(context.Background(), &messages.ElicitParams{Message: "defaults?", RequestedSchema: schema})
	require.NoError(t, err)
	assert.Equal(t, messages.ElicitActionAccept, res.Action)
	wire, err := messages.Marshal(res.Content)
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"John Doe","age":30,"score":95.5,"status":"active","verified":true}`, string(wire),
		"every default, with its JSON type; no value invented for a field without one")
}

func TestElicitationWithoutDefaultsIsAcceptedEmpty(t *testing.T) {
	for _, schema := range []string{``, `{"type":"object","properties":{"x":{"type":"string"}}}`, `not json`} {
		res, err := acceptElicitationDefaults(context.Background(), &messages.ElicitParams{RequestedSchema: messages.RawMessage(schema)})
		require.NoError(t, err)
		assert.Equal(t, messages.ElicitActionAccept, res.Action)
		assert.Empty(t, res.Content, schema)
	}
}

func TestURLElicitationIsDeclined(t *testing.T) {
	res, err := acceptElicitationDefaults(context.Background(), &messages.ElicitParams{
		Mode: messages.ElicitModeURL, URL: "https://example.com/auth", ElicitationID: "e1",
	})
	require.NoError(t, err)
	assert.Equal(t, messages.ElicitActionDecline, res.Action)
}

func TestConformanceNeedsTheServerURL(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"conformance"}, strings.NewReader(""), &out, &errOut)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut.String(), "the scenario server's URL")
}

func TestSkillFrontmatterIsComparedFieldByField(t *testing.T) {
	want := map[string]any{"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"}
	body := "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nBody.\n"
	require.NoError(t, checkFrontmatter([]byte(body), want))
	for name, bad := range map[string]string{
		"changed":  strings.Replace(body, "Extract, fill", "Exfiltrate", 1),
		"missing":  "---\nname: pdf-processing\n---\n",
		"extra":    strings.Replace(body, "---\n\n", "allowed-tools: Bash\n---\n\n", 1),
		"unclosed": "---\nname: pdf-processing\n",
		"none":     "Body only.\n",
	} {
		assert.Error(t, checkFrontmatter([]byte(bad), want), name)
	}
}

func TestEveryConformanceScenarioHasSteps(t *testing.T) {
	// The 0.2.0-alpha.12 client scenarios without steps of their own
	// would get listOffered, which skips what a server does not declare.
	for _, name := range []string{"initialize", "tools_call", "request-metadata", "sep-2322-client-request-state",
		"http-standard-headers", "http-custom-headers", "http-invalid-tool-headers", "json-schema-ref-no-deref",
		"json-schema-2020-12-preservation", "sep-2640-client-no-prefetch", "sep-2640-client-verify-digest", "auth/dpop"} {
		_, known := scenarioSteps(name)
		assert.True(t, known, name)
	}
	_, known := scenarioSteps("a-scenario-of-the-future")
	assert.False(t, known)
	args := sampleArguments(messages.RawMessage(`{"type":"object","properties":{"region":{"type":"string"},"n":{"type":"integer"},"opt":{"type":"string"}},"required":["region","n"]}`))
	assert.Equal(t, map[string]any{"region": "conformance", "n": 1}, args)
}
