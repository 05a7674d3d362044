package mcpengine

import (
	"context"
	"iter"

	"github.com/mcpengine/mcpengine/messages"
)

// ListPrompts returns every prompt, following pagination cursors; Prompts
// gives them one at a time instead.
func (s *Session) ListPrompts(ctx context.Context, opts ...CallOption) ([]messages.Prompt, error) {
	return collect(s.Prompts(ctx, opts...))
}

// Prompts iterates over every prompt, requesting the next page only when
// the loop reaches it: breaking out early sends no further request. A
// failure comes as the last pair, with the error.
//
//	for t, err := range s.Prompts(ctx) { ... }
func (s *Session) Prompts(ctx context.Context, opts ...CallOption) iter.Seq2[messages.Prompt, error] {
	return pages(ctx, s, messages.MethodPromptsList,
		func(r *messages.ListPromptsResult) []messages.Prompt { return r.Prompts },
		func(r *messages.ListPromptsResult) string { return r.NextCursor }, opts)
}

// ListPromptsPage returns one page of prompts.
func (s *Session) ListPromptsPage(ctx context.Context, cursor string, opts ...CallOption) (*messages.ListPromptsResult, error) {
	return listPage[messages.ListPromptsResult](ctx, s, messages.MethodPromptsList, cursor, opts)
}

// GetPrompt renders a prompt with its arguments.
func (s *Session) GetPrompt(ctx context.Context, name string, args map[string]string, opts ...CallOption) (*messages.GetPromptResult, error) {
	return decode[messages.GetPromptResult](s.Call(ctx, messages.MethodPromptsGet, &messages.GetPromptParams{Name: name, Arguments: args}, opts...))
}
