// Package interop builds the official Go SDK (v1.8.0) servers the engine's
// interoperability matrix runs against: one per era mode, each with a
// tool, a resource and a prompt. The test-only benchmarks module holds it
// so that go-sdk never enters the main module.
package interop

//lint:file-ignore SA1019 the interop server exercises sampling and roots on purpose: deprecated in 2026-07-28 (SEP-2577), still part of it.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Modes of the Go SDK server.
const (
	// ModeAll: every version the SDK speaks (its default, both eras).
	ModeAll = "all-versions"
	// ModeModern: SupportedProtocolVersions restricted to 2026-07-28.
	ModeModern = "2026-07-28-only"
	// ModeLegacy: SupportedProtocolVersions restricted to the handshake era.
	ModeLegacy = "legacy-only"
	// ModeRefuseInitialize: every version, and initialize refused with
	// -32022 naming 2026-07-28 (a receiving middleware), as a server of the
	// stateless era that names its versions to a legacy client.
	ModeRefuseInitialize = "refuses-initialize"
)

// Modes lists the modes in matrix order.
var Modes = []string{ModeAll, ModeModern, ModeLegacy, ModeRefuseInitialize}

// NewServer returns the Go SDK server of a mode.
func NewServer(mode string) (*mcp.Server, error) { return NewServerWith(mode, nil) }

// NewServerWith returns the Go SDK server of a mode with its options
// adjusted by tweak (nil: none).
func NewServerWith(mode string, tweak func(*mcp.ServerOptions)) (*mcp.Server, error) {
	opts := &mcp.ServerOptions{Instructions: "go-sdk interop server (" + mode + ")", CompletionHandler: completeName}
	if tweak != nil {
		tweak(opts)
	}
	switch mode {
	case ModeAll, ModeRefuseInitialize:
	case ModeModern:
		opts.SupportedProtocolVersions = []string{"2026-07-28"}
	case ModeLegacy:
		opts.SupportedProtocolVersions = slices.DeleteFunc(mcp.SupportedProtocolVersions(), func(v string) bool { return v >= "2026-07-28" })
	default:
		return nil, fmt.Errorf("unknown mode %q", mode)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "go-sdk-interop", Version: "1.8.0"}, opts)
	type echoArgs struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes text"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	s.AddResource(&mcp.Resource{URI: "interop://greeting", Name: "greeting", MIMEType: "text/plain"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/plain", Text: "hello"}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello, " + r.Params.Arguments["name"]}}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "ask", Description: "asks the client through input_required (2026-07-28)", InputSchema: json.RawMessage(`{"type":"object"}`)}, ask)
	// grow adds a tool, so the server announces notifications/tools/list_changed
	// to the sessions listening for it (the GET/stdio channel in the
	// handshake era, a subscriptions/listen stream in 2026-07-28).
	s.AddTool(&mcp.Tool{Name: "grow", Description: "adds the tool \"grown\"", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.AddTool(&mcp.Tool{Name: "grown", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{}, nil
				})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grown"}}}, nil
		})
	if mode == ModeRefuseInitialize {
		s.AddReceivingMiddleware(refuseInitialize)
	}
	return s, nil
}

// completeName completes the greet prompt's name argument from a fixed
// list of names.
func completeName(_ context.Context, r *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var values []string
	if r.Params.Ref.Type == "ref/prompt" && r.Params.Ref.Name == "greet" && r.Params.Argument.Name == "name" {
		for _, n := range []string{"Ada", "Alan", "Grace"} {
			if strings.HasPrefix(n, r.Params.Argument.Value) {
				values = append(values, n)
			}
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}

// refuseInitialize answers initialize with -32022 and the one version the
// server wants to speak.
func refuseInitialize(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "initialize" {
			return next(ctx, method, req)
		}
		requested := ""
		if p, ok := req.GetParams().(*mcp.InitializeParams); ok && p != nil {
			requested = p.ProtocolVersion
		}
		data, _ := json.Marshal(&mcp.UnsupportedProtocolVersionData{Supported: []string{"2026-07-28"}, Requested: requested})
		return nil, &jsonrpc.Error{Code: mcp.CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version", Data: data}
	}
}

// ask is a multi round-trip tool (2026-07-28): the first round asks for an
// elicitation, a sampling and the roots at once, the second (with the
// state of the first) asks for nothing but its own state back, and the
// third completes with what the client answered. A client of the
// handshake era gets the requests sent by the SDK's own middleware.
func ask(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p := req.Params
	switch p.RequestState {
	case "":
		return &mcp.CallToolResult{RequestState: "asked", InputRequests: mcp.InputRequestMap{
			"who": &mcp.ElicitParams{Mode: "form", Message: "name?", RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}},
			"model": &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "capital of France?"}}}},
			"roots": &mcp.ListRootsParams{},
		}}, nil
	case "asked":
		who, _ := p.InputResponses["who"].(*mcp.ElicitResult)
		model, _ := p.InputResponses["model"].(*mcp.CreateMessageWithToolsResult)
		roots, _ := p.InputResponses["roots"].(*mcp.ListRootsResult)
		if who == nil || model == nil || roots == nil || len(model.Content) == 0 || len(roots.Roots) == 0 {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "missing input responses"}
		}
		text, _ := model.Content[0].(*mcp.TextContent)
		if text == nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "sampling answered no text"}
		}
		answer := fmt.Sprintf("%v|%s|%s", who.Content["name"], text.Text, roots.Roots[0].URI)
		// requestState only: the client sends it back at once.
		return &mcp.CallToolResult{RequestState: "answered:" + answer, InputRequests: mcp.InputRequestMap{}}, nil
	default:
		answer, ok := strings.CutPrefix(p.RequestState, "answered:")
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid requestState"}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: answer}}}, nil
	}
}
