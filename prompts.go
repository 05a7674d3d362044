package mcpengine

import (
	"context"

	"github.com/mcpengine/mcpengine/messages"
)

// ListPrompts returns every prompt, following pagination cursors.
func (s *Session) ListPrompts(ctx context.Context, opts ...CallOption) ([]messages.Prompt, error) {
	return collectPages(ctx, s, messages.MethodPromptsList,
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
