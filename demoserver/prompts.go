package demoserver

import (
	"github.com/mcpengine/mcpengine/messages"
)

// promptDef is one demo prompt and how to render it.
type promptDef struct {
	def    messages.Prompt
	render func(args map[string]string) []messages.PromptMessage
}

func userText(s string) messages.PromptMessage {
	return messages.PromptMessage{Role: messages.RoleUser, Content: messages.TextContent(s)}
}

func demoPrompts() []promptDef {
	return []promptDef{
		{def: messages.Prompt{Name: "greet", Title: "Greet", Description: "Greets someone by name.",
			Arguments: []messages.PromptArgument{{Name: "name", Description: "Who to greet", Required: true}}},
			render: func(a map[string]string) []messages.PromptMessage {
				return []messages.PromptMessage{userText("Please greet " + a["name"] + " warmly.")}
			}},
		{def: messages.Prompt{Name: "summarize", Title: "Summarize", Description: "Summarizes a text.",
			Arguments: []messages.PromptArgument{
				{Name: "text", Description: "The text to summarize", Required: true},
				{Name: "style", Description: "brief, detailed or bullet-points"},
			}},
			render: func(a map[string]string) []messages.PromptMessage {
				style := a["style"]
				if style == "" {
					style = "brief"
				}
				return []messages.PromptMessage{
					userText("Summarize the following text in a " + style + " style:"),
					userText(a["text"]),
				}
			}},
		{def: messages.Prompt{Name: "code_review", Title: "Code review", Description: "Reviews a piece of code.",
			Arguments: []messages.PromptArgument{
				{Name: "code", Description: "The code", Required: true},
				{Name: "language", Description: "Its programming language"},
			}},
			render: func(a map[string]string) []messages.PromptMessage {
				return []messages.PromptMessage{
					userText("Review this " + a["language"] + " code:\n" + a["code"]),
					{Role: messages.RoleAssistant, Content: messages.TextContent("I will review it for correctness and style.")},
				}
			}},
		{def: messages.Prompt{Name: "hello", Title: "Hello", Description: "A prompt without arguments."},
			render: func(map[string]string) []messages.PromptMessage {
				return []messages.PromptMessage{userText("Hello!")}
			}},
	}
}

func (srv *Server) prompt(name string) (*promptDef, bool) {
	for i := range srv.prompts {
		if srv.prompts[i].def.Name == name {
			return &srv.prompts[i], true
		}
	}
	return nil, false
}

func handlePromptsList(r *request, buf []byte) ([]byte, *messages.WireError) {
	var p messages.PaginatedParams
	if werr := decodeParams(r.params, &p); werr != nil {
		return buf, werr
	}
	all := r.s.srv.prompts
	lo, hi, next, werr := page("prompts", p.Cursor, len(all), r.s.srv.opts.PageSize)
	if werr != nil {
		return buf, werr
	}
	res := messages.ListPromptsResult{Prompts: make([]messages.Prompt, 0, hi-lo), NextCursor: next}
	for _, pd := range all[lo:hi] {
		res.Prompts = append(res.Prompts, pd.def)
	}
	return appendMarshal(buf, &res)
}

// handlePromptsGet renders a prompt; an unknown prompt or a missing required
// argument is -32602.
func handlePromptsGet(r *request, buf []byte) ([]byte, *messages.WireError) {
	var p messages.GetPromptParams
	if werr := decodeParams(r.params, &p); werr != nil {
		return buf, werr
	}
	pd, ok := r.s.srv.prompt(p.Name)
	if !ok {
		return buf, invalidParams("unknown prompt: " + p.Name)
	}
	for _, a := range pd.def.Arguments {
		if a.Required && p.Arguments[a.Name] == "" {
			return buf, invalidParams("missing required argument: " + a.Name)
		}
	}
	return appendMarshal(buf, &messages.GetPromptResult{Description: pd.def.Description, Messages: pd.render(p.Arguments)})
}
