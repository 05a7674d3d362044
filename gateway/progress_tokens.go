package gateway

import (
	"strconv"
	"sync/atomic"

	"github.com/mcpengine/mcpengine/messages"
)

// progressTokenPrefix starts the progress tokens the gateway gives its
// clients for server requests that asked for progress: tokens of several
// servers could collide in one client session.
const progressTokenPrefix = "mcpengine-gateway-"

// progressTokens makes the gateway's progress tokens.
type progressTokens struct{ n atomic.Uint64 }

// token returns a new token and its JSON form.
func (p *progressTokens) token() (string, messages.RawMessage) {
	tok := progressTokenPrefix + strconv.FormatUint(p.n.Add(1), 10)
	return tok, messages.AppendJSONString(nil, tok)
}
