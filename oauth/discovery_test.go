package oauth

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDiscoveryVariants runs a full authorization against servers that
// publish their metadata in each of the places the specification allows,
// and asserts the order in which the client looked for it.
func TestDiscoveryVariants(t *testing.T) {
	tests := []struct {
		name string
		cfg  kitConfig
		// wantRS/wantAS: the discovery paths requested, in order (the /mcp
		// requests and the grant's endpoints are left out).
		wantRS, wantAS []string
		// wantEndpoints: the grant's requests, when they matter.
		wantEndpoints []string
		// wantResource is the resource parameter sent, relative to the
		// resource server's URL.
		wantResource string
	}{
		{name: "PRM URL from the challenge",
			cfg:          kitConfig{PRMPath: "/custom/metadata/location.json", PRMInHeader: true},
			wantRS:       []string{"/custom/metadata/location.json"},
			wantAS:       []string{"/.well-known/oauth-authorization-server"},
			wantResource: "/mcp"},
		{name: "path-aware PRM, not in the challenge (root never asked)",
			cfg:          kitConfig{},
			wantRS:       []string{"/.well-known/oauth-protected-resource/mcp"},
			wantAS:       []string{"/.well-known/oauth-authorization-server"},
			wantResource: "/mcp"},
		{name: "root PRM after the path-aware one",
			cfg:          kitConfig{PRMPath: "/.well-known/oauth-protected-resource"},
			wantRS:       []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"},
			wantAS:       []string{"/.well-known/oauth-authorization-server"},
			wantResource: ""},
		{name: "OpenID Connect discovery after RFC 8414 for a root issuer",
			cfg:          kitConfig{MetadataPath: "/.well-known/openid-configuration", OpenID: true},
			wantRS:       []string{"/.well-known/oauth-protected-resource/mcp"},
			wantAS:       []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"},
			wantResource: "/mcp"},
		{name: "RFC 8414 path insertion for an issuer with a path",
			cfg:          kitConfig{ASPrefix: "/tenant1"},
			wantRS:       []string{"/.well-known/oauth-protected-resource/mcp"},
			wantAS:       []string{"/.well-known/oauth-authorization-server/tenant1"},
			wantResource: "/mcp"},
		{name: "OpenID Connect path insertion",
			cfg:          kitConfig{ASPrefix: "/tenant1", MetadataPath: "/.well-known/openid-configuration/tenant1", OpenID: true},
			wantRS:       []string{"/.well-known/oauth-protected-resource/mcp"},
			wantAS:       []string{"/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1"},
			wantResource: "/mcp"},
		{name: "OpenID Connect path appending last",
			cfg:    kitConfig{ASPrefix: "/tenant1", MetadataPath: "/tenant1/.well-known/openid-configuration", OpenID: true},
			wantRS: []string{"/.well-known/oauth-protected-resource/mcp"},
			wantAS: []string{"/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1",
				"/tenant1/.well-known/openid-configuration"},
			wantResource: "/mcp"},
		{name: "2025-03-26: no PRM, metadata at the server's origin",
			cfg:    kitConfig{PRMPath: "-", ASOnRS: true, ASPrefix: "/oauth", MetadataPath: "/.well-known/oauth-authorization-server"},
			wantRS: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"},
			wantAS: []string{"/.well-known/oauth-authorization-server"},
			// no PRM: the canonical server URL
			wantResource: "/mcp"},
		{name: "2025-03-26: no metadata at all, default endpoints",
			cfg:           kitConfig{PRMPath: "-", ASOnRS: true, MetadataPath: "-"},
			wantRS:        []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"},
			wantAS:        []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"},
			wantEndpoints: []string{"/register", "/authorize", "/token"},
			wantResource:  "/mcp"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := newKit(t, tc.cfg)
			a := k.authorizer(Config{}, Options{})
			status, err := k.Call(k.mcpClient(a), "tools/list")
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, status)

			rs, as := k.Hits()
			assert.Equal(t, tc.wantRS, slices.DeleteFunc(rs, func(p string) bool { return p == "/mcp" }), "resource server discovery requests")
			assert.Equal(t, tc.wantAS, wellKnownOnly(as, true), "authorization server discovery requests")
			if tc.wantEndpoints != nil {
				assert.Equal(t, tc.wantEndpoints, wellKnownOnly(as, false), "grant requests")
			}

			authReqs, tokenReqs, regs := k.Snapshot()
			require.Len(t, authReqs, 1)
			require.Len(t, regs, 1)
			require.Len(t, tokenReqs, 1)
			assert.Equal(t, k.ResourceOrigin()+tc.wantResource, authReqs[0].Get("resource"))
			assert.Equal(t, k.ResourceOrigin()+tc.wantResource, tokenReqs[0].Form.Get("resource"))
		})
	}
}

// wellKnownOnly keeps the discovery requests (want true) or the others.
func wellKnownOnly(paths []string, want bool) []string {
	var out []string
	for _, p := range paths {
		if strings.Contains(p, "/.well-known/") == want {
			out = append(out, p)
		}
	}
	return out
}

// TestResourceMismatchRefused: metadata for another resource must not
// lead to an authorization request, and the failure is permanent.
func TestResourceMismatchRefused(t *testing.T) {
	k := newKit(t, kitConfig{PRMResource: "https://evil.example.com/mcp", PRMInHeader: true})
	a := k.authorizer(Config{}, Options{})
	_, err := k.Call(k.mcpClient(a), "initialize")
	require.Error(t, err)
	var ue *UnauthorizedError
	require.True(t, errors.As(err, &ue), "error %v", err)
	assert.True(t, ue.Permanent())
	assert.ErrorIs(t, err, ErrUnauthorized)
	assert.Contains(t, ue.Reason, "https://evil.example.com/mcp")

	authReqs, tokenReqs, regs := k.Snapshot()
	assert.Empty(t, authReqs, "no authorization request for a mismatched resource")
	assert.Empty(t, tokenReqs)
	assert.Empty(t, regs)
}

func TestResourceCovers(t *testing.T) {
	srv, err := canonicalResource("https://MCP.example.com/api/mcp/")
	require.NoError(t, err)
	assert.Equal(t, "https://mcp.example.com/api/mcp", srv.String())
	for res, want := range map[string]bool{
		"https://mcp.example.com/api/mcp":  true,
		"https://mcp.example.com/api":      true,
		"https://mcp.example.com":          true,
		"https://mcp.example.com/":         true,
		"https://mcp.example.com/ap":       false, // not a path-segment prefix
		"https://mcp.example.com/api/mcp2": false,
		"http://mcp.example.com/api/mcp":   false,
		"https://evil.example.com/api/mcp": false,
		"":                                 false,
	} {
		assert.Equal(t, want, resourceCovers(res, srv), res)
	}
}

func TestASMetadataURLs(t *testing.T) {
	got, err := asMetadataURLs("https://auth.example.com")
	require.NoError(t, err)
	assert.Equal(t, []string{"https://auth.example.com/.well-known/oauth-authorization-server",
		"https://auth.example.com/.well-known/openid-configuration"}, got)
	got, err = asMetadataURLs("https://auth.example.com/tenant1/")
	require.NoError(t, err)
	assert.Equal(t, []string{"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
		"https://auth.example.com/.well-known/openid-configuration/tenant1",
		"https://auth.example.com/tenant1/.well-known/openid-configuration"}, got)
}
