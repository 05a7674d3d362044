package mcpengine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
)

// TestIteratorsYieldWhatTheListCallsReturnOverStdio: against engine serve
// with pages of 2, each iterator yields, in order, what its List call
// collects, and breaking out after the first item sends no second page
// request (the session's request counter says how many went out).
func TestIteratorsYieldWhatTheListCallsReturnOverStdio(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 30*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "pages", Server: engineServe("--page-size", "2")})
	require.NoError(t, err)

	tools, err := s.ListTools(ctx)
	require.NoError(t, err)
	require.Greater(t, len(tools), 2, "more than one page")
	assert.Equal(t, itemNames(tools, func(t messages.Tool) string { return t.Name }), drain(t, s.Tools(ctx), func(t messages.Tool) string { return t.Name }))
	resources, err := s.ListResources(ctx)
	require.NoError(t, err)
	assert.Equal(t, itemNames(resources, func(r messages.Resource) string { return r.URI }), drain(t, s.Resources(ctx), func(r messages.Resource) string { return r.URI }))
	templates, err := s.ListResourceTemplates(ctx)
	require.NoError(t, err)
	assert.Equal(t, itemNames(templates, func(r messages.ResourceTemplate) string { return r.URITemplate }),
		drain(t, s.ResourceTemplates(ctx), func(r messages.ResourceTemplate) string { return r.URITemplate }))
	prompts, err := s.ListPrompts(ctx)
	require.NoError(t, err)
	assert.Equal(t, itemNames(prompts, func(p messages.Prompt) string { return p.Name }), drain(t, s.Prompts(ctx), func(p messages.Prompt) string { return p.Name }))

	before := s.Stats().Requests
	for tool, err := range s.Tools(ctx) {
		require.NoError(t, err)
		require.Equal(t, tools[0].Name, tool.Name)
		break
	}
	assert.Equal(t, before+1, s.Stats().Requests, "one page requested, none after the break")

	before = s.Stats().Requests
	seen := 0
	for _, err := range s.Tools(ctx) {
		require.NoError(t, err)
		if seen++; seen == 3 { // the first item of the second page
			break
		}
	}
	assert.Equal(t, before+2, s.Stats().Requests, "two pages requested for three items")
}

// TestIteratorEndsWithTheErrorOfAFailedPage: a page request that fails
// (here, the caller's ctx already over) is yielded once, as the last pair,
// with the error.
func TestIteratorEndsWithTheErrorOfAFailedPage(t *testing.T) {
	e := newEngine(t, mcpengine.Config{})
	s := connectMemory(t, e, demoserver.New(demoserver.Options{PageSize: 1}))
	ctx, cancel := context.WithCancel(testCtx(t, 10*time.Second))
	defer cancel()
	var errs []error
	items := 0
	for _, err := range s.Prompts(ctx) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		items++
		cancel() // the next page's request finds ctx over
	}
	assert.Equal(t, 1, items)
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], context.Canceled)
}

func itemNames[T any](items []T, name func(T) string) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, name(it))
	}
	return out
}

func drain[T any](t *testing.T, seq func(func(T, error) bool), name func(T) string) []string {
	t.Helper()
	out := []string{}
	for it, err := range seq {
		require.NoError(t, err)
		out = append(out, name(it))
	}
	return out
}
