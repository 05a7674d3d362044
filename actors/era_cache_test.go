package actors

import (
	"testing"

	"github.com/mcpengine/mcpengine/messages"
)

// TestSessionsOfAServerShareWhatTheyLearnedAlike: a second session of a
// server that learned the same facts gets the first one's Negotiated;
// one that learned others keeps its own (and the next session shares
// that); other servers and sessions without a key never share.
func TestSessionsOfAServerShareWhatTheyLearnedAlike(t *testing.T) {
	c := NewEraCache()
	learn := func(version, name string) *Negotiated {
		return &Negotiated{ProtocolVersion: version, ServerInfo: messages.Implementation{Name: name, Version: "1"},
			Capabilities: messages.ServerCapabilities{Tools: &messages.ToolsCapability{ListChanged: true}}}
	}
	first := c.share("srv", learn("2025-11-25", "demo"))
	if got := c.share("srv", learn("2025-11-25", "demo")); got != first {
		t.Fatal("an equal outcome of the same server is not shared")
	}
	other := learn("2025-06-18", "demo")
	if got := c.share("srv", other); got != other {
		t.Fatal("a different outcome was replaced by the old one")
	}
	if got := c.share("srv", learn("2025-06-18", "demo")); got != other {
		t.Fatal("the newest outcome is not the one shared next")
	}
	if got, n := c.share("another", learn("2025-11-25", "demo")), first; got == n {
		t.Fatal("two servers share an outcome")
	}
	if n := learn("2025-11-25", "demo"); c.share("", n) != n {
		t.Fatal("a session without a server key shared")
	}
	var none *EraCache
	if n := learn("2025-11-25", "demo"); none.share("srv", n) != n {
		t.Fatal("no cache, yet shared")
	}
}
