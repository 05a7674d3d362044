package mcpengine

import (
	"context"

	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/messages"
)

// SamplingHandler answers a server's sampling/createMessage. It runs in its
// own goroutine; ctx is cancelled if the server cancels the request or the
// connection goes away. Return a *RPCError to answer with a specific code.
type SamplingHandler func(ctx context.Context, req *messages.CreateMessageParams) (*messages.CreateMessageResult, error)

// ElicitationHandler answers a server's elicitation/create in form mode:
// ask the user for the fields of req.RequestedSchema.
type ElicitationHandler func(ctx context.Context, req *messages.ElicitParams) (*messages.ElicitResult, error)

// URLElicitationHandler answers a server's elicitation/create in URL mode
// (2025-11-25): show the user req.Message and, with their consent, open
// req.URL in a browser; answer "accept" once opened (the server learns the
// outcome out of band and may then send notifications/elicitation/complete
// with req.ElicitationID, which reaches OnNotification), "decline" or
// "cancel" otherwise. Setting it declares URL-mode elicitation.
type URLElicitationHandler func(ctx context.Context, req *messages.ElicitParams) (*messages.ElicitResult, error)

// RootsHandler answers a server's roots/list when the roots are not a
// fixed list (Config.Roots): a relay asking its own client, say. It runs
// in its own goroutine; ctx ends if the server cancels or the connection
// goes.
type RootsHandler func(ctx context.Context) ([]messages.Root, error)

func (h RootsHandler) raw() actors.ServerRequestHandler {
	return func(ctx context.Context, _ messages.RawMessage) (any, error) {
		roots, err := h(ctx)
		if err != nil {
			return nil, err
		}
		if roots == nil {
			roots = []messages.Root{}
		}
		return &messages.ListRootsResult{Roots: roots}, nil
	}
}

func (h SamplingHandler) raw() actors.ServerRequestHandler {
	return func(ctx context.Context, params messages.RawMessage) (any, error) {
		var p messages.CreateMessageParams
		if err := messages.Unmarshal(params, &p); err != nil {
			return nil, &RPCError{Code: messages.CodeInvalidParams, Message: err.Error()}
		}
		return h(ctx, &p)
	}
}

// elicitationRaw answers elicitation/create with the handler of the
// request's mode; a mode without a handler is refused as invalid params,
// as the spec asks of a mode the client did not declare.
func elicitationRaw(form ElicitationHandler, url URLElicitationHandler) actors.ServerRequestHandler {
	return func(ctx context.Context, params messages.RawMessage) (any, error) {
		var p messages.ElicitParams
		if err := messages.Unmarshal(params, &p); err != nil {
			return nil, &RPCError{Code: messages.CodeInvalidParams, Message: err.Error()}
		}
		if p.Mode == messages.ElicitModeURL {
			if url == nil {
				return nil, &RPCError{Code: messages.CodeInvalidParams, Message: "this client does not answer URL-mode elicitation"}
			}
			if p.URL == "" || p.ElicitationID == "" {
				return nil, &RPCError{Code: messages.CodeInvalidParams, Message: "URL-mode elicitation needs url and elicitationId"}
			}
			return url(ctx, &p)
		}
		if form == nil {
			return nil, &RPCError{Code: messages.CodeInvalidParams, Message: "this client does not answer form-mode elicitation"}
		}
		return form(ctx, &p)
	}
}
