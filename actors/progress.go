package actors

import (
	"strconv"

	"github.com/mcpengine/mcpengine/messages"
)

// withProgressToken puts the request's id into params._meta.progressToken.
// The engine generates the token, so it is the request id: unique among
// the session's active requests by construction.
func withProgressToken(params messages.RawMessage, id int64) messages.RawMessage {
	return messages.WithMeta(params, messages.MetaField{Key: messages.MetaProgressToken, Value: strconv.AppendInt(nil, id, 10)})
}
