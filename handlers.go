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

// ElicitationHandler answers a server's elicitation/create.
type ElicitationHandler func(ctx context.Context, req *messages.ElicitParams) (*messages.ElicitResult, error)

func (h SamplingHandler) raw() actors.ServerRequestHandler {
	return func(ctx context.Context, params messages.RawMessage) (any, error) {
		var p messages.CreateMessageParams
		if err := messages.Unmarshal(params, &p); err != nil {
			return nil, &RPCError{Code: messages.CodeInvalidParams, Message: err.Error()}
		}
		return h(ctx, &p)
	}
}

func (h ElicitationHandler) raw() actors.ServerRequestHandler {
	return func(ctx context.Context, params messages.RawMessage) (any, error) {
		var p messages.ElicitParams
		if err := messages.Unmarshal(params, &p); err != nil {
			return nil, &RPCError{Code: messages.CodeInvalidParams, Message: err.Error()}
		}
		return h(ctx, &p)
	}
}
