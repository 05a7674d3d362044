package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/oauth"
)

// contextEnv carries a scenario's client credentials as JSON (some auth
// scenarios of the suite pass them; the others expect discovery and
// dynamic registration or a client metadata document).
const contextEnv = "MCP_CONFORMANCE_CONTEXT"

// conformanceClientMetadataURL is the client_id the suite's
// authorization servers expect from a client using a Client ID Metadata
// Document (the document need not be fetchable).
const conformanceClientMetadataURL = "https://conformance-test.local/client-metadata.json"

// conformanceRedirectURI is where the suite's authorization endpoint
// redirects with the code; nothing listens there: the redirect agent reads
// the code from the Location header.
const conformanceRedirectURI = "http://127.0.0.1:3000/callback"

// conformanceContext is the JSON of MCP_CONFORMANCE_CONTEXT.
type conformanceContext struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	IDPClientID      string `json:"idp_client_id"`
	IDPClientSecret  string `json:"idp_client_secret"`
	IDPIDToken       string `json:"idp_id_token"`
	IDPIssuer        string `json:"idp_issuer"`
	IDPTokenEndpoint string `json:"idp_token_endpoint"`
}

// conformanceAuth is the OAuth configuration of an auth/* scenario: the
// grant its name implies, with the credentials of its context. Scenarios
// outside auth/* get none.
func conformanceAuth(scenario string) (*mcpengine.AuthConfig, error) {
	if !strings.HasPrefix(scenario, "auth/") {
		return nil, nil
	}
	var cc conformanceContext
	if raw := os.Getenv(contextEnv); raw != "" {
		if err := messages.Unmarshal([]byte(raw), &cc); err != nil {
			return nil, fmt.Errorf("conformance %s: %s is not the JSON expected: %w", scenario, contextEnv, err)
		}
	}
	cfg := &oauth.Config{
		ClientID:          cc.ClientID,
		ClientSecret:      cc.ClientSecret,
		ClientMetadataURL: conformanceClientMetadataURL,
		ClientName:        "mcpengine-conformance",
		PrivateKeyPEM:     cc.PrivateKeyPEM,
		SigningAlgorithm:  cc.SigningAlgorithm,
	}
	switch {
	case strings.HasPrefix(scenario, "auth/client-credentials"):
		cfg.Grant = oauth.GrantClientCredentials
		if cc.PrivateKeyPEM != "" {
			cfg.TokenEndpointAuthMethod = "private_key_jwt"
		}
	case strings.HasPrefix(scenario, "auth/cross-app-access"), scenario == "auth/enterprise-managed-authorization":
		// Enterprise-managed authorization (SEP-990) is the 0.2 suite's
		// name for cross-app access: an ID-JAG from the identity provider
		// by token exchange, then the JWT bearer grant.
		cfg.Grant = oauth.GrantCrossAppAccess
		cfg.IDP = &oauth.IDPConfig{
			Issuer:        cc.IDPIssuer,
			TokenEndpoint: cc.IDPTokenEndpoint,
			ClientID:      cc.IDPClientID,
			ClientSecret:  cc.IDPClientSecret,
			IDToken:       cc.IDPIDToken,
		}
	}
	return &mcpengine.AuthConfig{OAuth: cfg}, nil
}
