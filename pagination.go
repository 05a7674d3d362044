package mcpengine

import (
	"context"
	"fmt"
	"iter"

	"github.com/mcpengine/mcpengine/messages"
)

// MaxPages bounds automatic pagination so a server that keeps returning
// cursors cannot make a List call or an iterator run forever.
const MaxPages = 10000

// pages yields every item of a list method, page by page: a page is
// requested only when the consumer has taken every item of the one
// before, so stopping early sends no further request. A failure is
// yielded once, with T's zero value, and ends the sequence; so does a
// cursor the server already returned (a loop) or more than MaxPages pages.
func pages[R any, T any](ctx context.Context, s *Session, method string, items func(*R) []T, next func(*R) string, opts []CallOption) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		seen := map[string]bool{}
		cursor := ""
		for range MaxPages {
			r, err := listPage[R](ctx, s, method, cursor, opts)
			if err != nil {
				yield(zero, err)
				return
			}
			for _, it := range items(r) {
				if !yield(it, nil) {
					return
				}
			}
			cursor = next(r)
			if cursor == "" {
				return
			}
			if seen[cursor] {
				yield(zero, fmt.Errorf("mcpengine: %s: server repeated cursor %q", method, cursor))
				return
			}
			seen[cursor] = true
		}
		yield(zero, fmt.Errorf("mcpengine: %s: more than %d pages", method, MaxPages))
	}
}

// collect gathers a sequence of pages: the items before a failure are
// returned with it.
func collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	var all []T
	for it, err := range seq {
		if err != nil {
			return all, err
		}
		all = append(all, it)
	}
	return all, nil
}

func listPage[R any](ctx context.Context, s *Session, method, cursor string, opts []CallOption) (*R, error) {
	var params any
	if cursor != "" {
		params = &messages.PaginatedParams{Cursor: cursor}
	}
	return decode[R](s.cachedCall(ctx, method, cursor, params, opts))
}
