package demoserver

import (
	"errors"
	"strings"

	"github.com/mcpengine/mcpengine/messages"
)

// clientCallFailed turns a failed server→client request into a tool error
// result, or errNoResponse if the tool call itself was cancelled.
func clientCallFailed(r *request, buf []byte, method string, err error) ([]byte, *messages.WireError) {
	if r.ctx.Err() != nil {
		return buf, errNoResponse
	}
	if buf, werr, ok := modernAnswer(r, buf, err); ok {
		return buf, werr
	}
	var werr *messages.WireError
	if errors.As(err, &werr) {
		return toolError(buf, method+" failed: "+werr.Error())
	}
	return toolError(buf, method+" failed: "+err.Error())
}

// The three tools below ask the client through askClient: a request in
// the handshake era, an input_required round trip in the stateless era
// (input_required.go).

// toolSample: {prompt} -> sends sampling/createMessage (one user message,
// maxTokens 100) and returns the text of the client's answer. The request is
// sent whatever the client declared, so a client without sampling can show
// how it refuses; its error becomes an isError result.
func toolSample(r *request, buf []byte) ([]byte, *messages.WireError) {
	var a struct {
		Prompt string `json:"prompt"`
	}
	if ok, msg := decodeArgs(r, &a); !ok {
		return toolError(buf, msg)
	}
	msg := messages.SamplingMessage{Role: messages.RoleUser}
	if err := msg.SetContent(messages.TextContent(a.Prompt)); err != nil {
		return buf, internalError(err)
	}
	params := messages.CreateMessageParams{
		Messages:     []messages.SamplingMessage{msg},
		SystemPrompt: "You are the demoserver's sampling target.",
		MaxTokens:    100,
	}
	raw, err := r.askClient(messages.MethodSamplingCreateMessage, &params)
	if err != nil {
		return clientCallFailed(r, buf, messages.MethodSamplingCreateMessage, err)
	}
	var res messages.CreateMessageResult
	if err := messages.Unmarshal(raw, &res); err != nil {
		return toolError(buf, "malformed sampling result: "+err.Error())
	}
	blocks, err := res.Blocks()
	if err != nil {
		return toolError(buf, "malformed sampling content: "+err.Error())
	}
	var text strings.Builder
	for _, b := range blocks {
		if b.Type == messages.ContentTypeText {
			text.WriteString(b.Text)
		}
	}
	structured, _ := messages.Marshal(map[string]string{"text": text.String(), "model": res.Model, "role": res.Role})
	return appendTextResult(buf, text.String(), structured, false), nil
}

// elicitSchema is the form elicit asks for: a required string and a boolean.
const elicitSchema = `{"type":"object","properties":{"name":{"type":"string","title":"Name"},"confirm":{"type":"boolean","title":"Confirm"}},"required":["name"]}`

// toolElicit: {message} -> sends elicitation/create (form mode; mode is
// set only for 2025-11-25) and returns "action=<action> content=<json>"
// with structuredContent {"action", "content"}.
func toolElicit(r *request, buf []byte) ([]byte, *messages.WireError) {
	var a struct {
		Message string `json:"message"`
	}
	if ok, msg := decodeArgs(r, &a); !ok {
		return toolError(buf, msg)
	}
	params := messages.ElicitParams{Message: a.Message, RequestedSchema: messages.RawMessage(elicitSchema)}
	if v, _ := r.s.negotiated(); messages.VersionAtLeast(v, messages.Version20251125) {
		params.Mode = messages.ElicitModeForm
	}
	raw, err := r.askClient(messages.MethodElicitationCreate, &params)
	if err != nil {
		return clientCallFailed(r, buf, messages.MethodElicitationCreate, err)
	}
	var res struct {
		Action  string              `json:"action"`
		Content messages.RawMessage `json:"content"`
	}
	if err := messages.Unmarshal(raw, &res); err != nil {
		return toolError(buf, "malformed elicitation result: "+err.Error())
	}
	content := res.Content
	if len(content) == 0 {
		content = messages.RawMessage("null")
	}
	structured := make([]byte, 0, 32+len(res.Action)+len(content))
	structured = append(structured, `{"action":`...)
	structured = appendString(structured, res.Action)
	structured = append(structured, `,"content":`...)
	structured = append(structured, content...)
	structured = append(structured, '}')
	return appendTextResult(buf, "action="+res.Action+" content="+string(content), structured, false), nil
}

// toolRoots: {} -> sends roots/list and returns the root URIs, one per
// line, with structuredContent {"roots": [uri...]}.
func toolRoots(r *request, buf []byte) ([]byte, *messages.WireError) {
	raw, err := r.askClient(messages.MethodRootsList, &messages.ListRootsParams{})
	if err != nil {
		return clientCallFailed(r, buf, messages.MethodRootsList, err)
	}
	var res messages.ListRootsResult
	if err := messages.Unmarshal(raw, &res); err != nil {
		return toolError(buf, "malformed roots result: "+err.Error())
	}
	uris := make([]string, 0, len(res.Roots))
	for _, root := range res.Roots {
		uris = append(uris, root.URI)
	}
	structured, _ := messages.Marshal(map[string][]string{"roots": uris})
	return appendTextResult(buf, strings.Join(uris, "\n"), structured, false), nil
}
