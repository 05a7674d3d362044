package mcpengine

import (
	"context"
	"errors"
	"iter"

	"github.com/mcpengine/mcpengine/messages"
)

// ListResources returns every resource, following pagination cursors; Resources
// gives them one at a time instead.
func (s *Session) ListResources(ctx context.Context, opts ...CallOption) ([]messages.Resource, error) {
	return collect(s.Resources(ctx, opts...))
}

// Resources iterates over every resource, requesting the next page only when
// the loop reaches it: breaking out early sends no further request. A
// failure comes as the last pair, with the error.
//
//	for t, err := range s.Resources(ctx) { ... }
func (s *Session) Resources(ctx context.Context, opts ...CallOption) iter.Seq2[messages.Resource, error] {
	return pages(ctx, s, messages.MethodResourcesList,
		func(r *messages.ListResourcesResult) []messages.Resource { return r.Resources },
		func(r *messages.ListResourcesResult) string { return r.NextCursor }, opts)
}

// ListResourcesPage returns one page of resources.
func (s *Session) ListResourcesPage(ctx context.Context, cursor string, opts ...CallOption) (*messages.ListResourcesResult, error) {
	return listPage[messages.ListResourcesResult](ctx, s, messages.MethodResourcesList, cursor, opts)
}

// ListResourceTemplates returns every resource template, following pagination cursors; ResourceTemplates
// gives them one at a time instead.
func (s *Session) ListResourceTemplates(ctx context.Context, opts ...CallOption) ([]messages.ResourceTemplate, error) {
	return collect(s.ResourceTemplates(ctx, opts...))
}

// ResourceTemplates iterates over every resource template, requesting the next page only when
// the loop reaches it: breaking out early sends no further request. A
// failure comes as the last pair, with the error.
//
//	for t, err := range s.ResourceTemplates(ctx) { ... }
func (s *Session) ResourceTemplates(ctx context.Context, opts ...CallOption) iter.Seq2[messages.ResourceTemplate, error] {
	return pages(ctx, s, messages.MethodResourcesTemplatesList,
		func(r *messages.ListResourceTemplatesResult) []messages.ResourceTemplate { return r.ResourceTemplates },
		func(r *messages.ListResourceTemplatesResult) string { return r.NextCursor }, opts)
}

// ListResourceTemplatesPage returns one page of resource templates.
func (s *Session) ListResourceTemplatesPage(ctx context.Context, cursor string, opts ...CallOption) (*messages.ListResourceTemplatesResult, error) {
	return listPage[messages.ListResourceTemplatesResult](ctx, s, messages.MethodResourcesTemplatesList, cursor, opts)
}

// ReadResource reads one resource.
func (s *Session) ReadResource(ctx context.Context, uri string, opts ...CallOption) (*messages.ReadResourceResult, error) {
	return decode[messages.ReadResourceResult](s.cachedCall(ctx, messages.MethodResourcesRead, uri, &messages.ReadResourceParams{URI: uri}, opts))
}

// Subscribe asks for notifications/resources/updated about uri and
// returns once the server will send them. The subscription is replayed
// after every reconnect. In 2026-07-28, which has no
// resources/subscribe, the URI joins the filter of the session's
// subscriptions/listen, which is re-opened with it; Subscribe returns once
// the server acknowledged a filter with the URI, and fails with
// ErrSubscriptionDeclined when it acknowledged one without it
// (subscribe_ack.go). Without a deadline on ctx the wait is bounded by
// the request timeout.
func (s *Session) Subscribe(ctx context.Context, uri string) error {
	if s.modern() {
		return s.subscribeByListen(ctx, uri)
	}
	if _, err := s.Call(ctx, messages.MethodResourcesSubscribe, &messages.SubscribeParams{URI: uri}); err != nil {
		if errors.Is(err, ErrNotInProtocolVersion) && s.modern() {
			return s.subscribeByListen(ctx, uri) // the era was learned while the call waited
		}
		return err
	}
	s.h.TrackSubscription(uri, true)
	return nil
}

// Unsubscribe cancels a subscription (in 2026-07-28: removes uri from the
// listen's filter).
func (s *Session) Unsubscribe(ctx context.Context, uri string) error {
	s.h.TrackSubscription(uri, false)
	if s.modern() {
		return nil
	}
	_, err := s.Call(ctx, messages.MethodResourcesUnsubscribe, &messages.UnsubscribeParams{URI: uri})
	if errors.Is(err, ErrNotInProtocolVersion) && s.modern() {
		return nil
	}
	return err
}

func (s *Session) modern() bool {
	n := s.sh.Negotiated()
	return n != nil && n.Modern()
}
