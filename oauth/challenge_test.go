package oauth

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseBearerChallenge(t *testing.T) {
	tests := []struct {
		name   string
		fields []string
		want   bearerChallenge
		ok     bool
	}{
		{"resource metadata and scope",
			[]string{`Bearer resource_metadata="https://rs.example/.well-known/oauth-protected-resource/mcp", scope="mcp:read mcp:write"`},
			bearerChallenge{ResourceMetadata: "https://rs.example/.well-known/oauth-protected-resource/mcp", Scopes: []string{"mcp:read", "mcp:write"}}, true},
		{"error and description with escapes",
			[]string{`Bearer error="insufficient_scope", error_description="needs \"admin\", sorry", scope="admin"`},
			bearerChallenge{Error: "insufficient_scope", ErrorDescription: `needs "admin", sorry`, Scopes: []string{"admin"}}, true},
		{"case-insensitive scheme and names, token values",
			[]string{`bEaReR Error=invalid_token, SCOPE="a"`},
			bearerChallenge{Error: "invalid_token", Scopes: []string{"a"}}, true},
		{"bearer after another challenge in the same field",
			[]string{`Basic realm="x", charset="UTF-8", Bearer realm="mcp", resource_metadata="https://r/m"`},
			bearerChallenge{ResourceMetadata: "https://r/m"}, true},
		{"bearer after a token68 challenge",
			[]string{`Negotiate abc+/def==, Bearer scope="s"`},
			bearerChallenge{Scopes: []string{"s"}}, true},
		{"bearer in a second field",
			[]string{`DPoP algs="ES256"`, `Bearer error="invalid_token"`},
			bearerChallenge{Error: "invalid_token"}, true},
		{"bare bearer", []string{`Bearer`}, bearerChallenge{}, true},
		{"spaces around equals", []string{`Bearer scope = "a b" , error = "e"`},
			bearerChallenge{Scopes: []string{"a", "b"}, Error: "e"}, true},
		{"no bearer", []string{`Basic realm="x"`}, bearerChallenge{}, false},
		{"no header", nil, bearerChallenge{}, false},
		{"unterminated quote is kept", []string{`Bearer error="invalid_token`}, bearerChallenge{Error: "invalid_token"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for _, f := range tc.fields {
				h.Add("WWW-Authenticate", f)
			}
			got, ok := parseBearerChallenge(h)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}
