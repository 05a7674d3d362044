package mcpengine

import (
	"context"
	"fmt"

	"github.com/mcpengine/mcpengine/messages"
)

// MaxPages bounds automatic pagination so a server that keeps returning
// cursors cannot make a List call run forever.
const MaxPages = 10000

// collectPages walks every page of a list method, refusing a cursor the
// server already returned (a loop).
func collectPages[R any, T any](ctx context.Context, s *Session, method string, items func(*R) []T, next func(*R) string, opts []CallOption) ([]T, error) {
	var all []T
	seen := map[string]bool{}
	cursor := ""
	for page := 0; page < MaxPages; page++ {
		r, err := listPage[R](ctx, s, method, cursor, opts)
		if err != nil {
			return all, err
		}
		all = append(all, items(r)...)
		cursor = next(r)
		if cursor == "" {
			return all, nil
		}
		if seen[cursor] {
			return all, fmt.Errorf("mcpengine: %s: server repeated cursor %q", method, cursor)
		}
		seen[cursor] = true
	}
	return all, fmt.Errorf("mcpengine: %s: more than %d pages", method, MaxPages)
}

func listPage[R any](ctx context.Context, s *Session, method, cursor string, opts []CallOption) (*R, error) {
	var params any
	if cursor != "" {
		params = &messages.PaginatedParams{Cursor: cursor}
	}
	return decode[R](s.cachedCall(ctx, method, cursor, params, opts))
}
