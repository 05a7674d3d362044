package mcpengine_test

import (
	"testing"

	"github.com/mcpengine/mcpengine"
)

// FuzzParseConfig feeds arbitrary documents to the mcpServers loader: a
// configuration or an error, never a panic; and every server of a
// configuration it accepts can be looked up by its name.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{"mcpServers":{"files":{"command":"npx","args":["-y","x","${HOME}"],"env":{"K":"$V"}}}}`))
	f.Add([]byte(`{"mcpServers":{"r":{"url":"https://h/mcp","headers":{"X":"${T}"},"auth":{"bearer":"${TOKEN}"}}}}`))
	f.Add([]byte(`{"mcpServers":{"o":{"url":"https://h/mcp","auth":{"oauth":{"clientId":"a","scopes":["s"],"idp":{"issuer":"i"}}}}}}`))
	f.Add([]byte(`{"mcpServers":{"b":{"type":"sse","url":"http://h","auth":{"basic":{"username":"u","password":"p"}},"tls":{"insecureSkipVerify":true}}}}`))
	f.Add([]byte(`{"mcpServers":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		cf, err := mcpengine.ParseConfig(doc)
		if err != nil {
			return
		}
		for name := range cf.Servers {
			if _, err := cf.Server(name); err != nil {
				t.Fatalf("server %q of a parsed config cannot be looked up: %v", name, err)
			}
		}
	})
}
