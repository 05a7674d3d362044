package oauthtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
)

func (k *Kit) prmPath() string {
	if k.cfg.PRMPath == "" {
		return WellKnownPRM + "/mcp"
	}
	return k.cfg.PRMPath
}

// serveRS is the resource server: its metadata, and everything else
// behind the bearer check.
func (k *Kit) serveRS(w http.ResponseWriter, r *http.Request) {
	if k.cfg.ASOnRS && r.URL.Path != "/mcp" && !strings.HasPrefix(r.URL.Path, WellKnownPRM) {
		k.serveAS(w, r)
		return
	}
	k.mu.Lock()
	k.rsHits = append(k.rsHits, r.URL.Path)
	k.mu.Unlock()
	switch {
	case r.URL.Path == k.prmPath() && k.cfg.PRMPath != "-":
		k.servePRM(w)
	case r.URL.Path == "/mcp" || k.cfg.Resource != nil:
		k.serveProtected(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (k *Kit) servePRM(w http.ResponseWriter) {
	resource := k.ServerURL()
	if k.prmPath() == WellKnownPRM {
		resource = k.rs.URL
	}
	if k.cfg.PRMResource != "" {
		resource = k.cfg.PRMResource
	}
	doc := map[string]any{"resource": resource, "authorization_servers": []string{k.authServer().Issuer()}}
	if k.cfg.PRMScopes != nil {
		doc["scopes_supported"] = k.cfg.PRMScopes
	}
	WriteJSON(w, http.StatusOK, doc)
}

// challenge is the WWW-Authenticate value of an answer with the given
// error, description and scopes.
func (k *Kit) challenge(errCode, desc string, scopes []string) string {
	var parts []string
	if errCode != "" {
		parts = append(parts, fmt.Sprintf(`error="%s"`, errCode))
	}
	if desc != "" {
		parts = append(parts, fmt.Sprintf(`error_description="%s"`, desc))
	}
	if len(scopes) > 0 {
		parts = append(parts, fmt.Sprintf(`scope="%s"`, strings.Join(scopes, " ")))
	}
	if k.cfg.PRMInHeader && k.cfg.PRMPath != "-" {
		parts = append(parts, fmt.Sprintf(`resource_metadata="%s%s"`, k.rs.URL, k.prmPath()))
	}
	return "Bearer " + strings.Join(parts, ", ")
}

// serveProtected checks the request's bearer token and, once it passes,
// hands the request (its body intact) to the resource.
func (k *Kit) serveProtected(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method == http.MethodPost && !json.Valid(body) {
		// The client's body must survive its retries intact.
		http.Error(w, "body is not JSON", http.StatusBadRequest)
		return
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		w.Header().Set("WWW-Authenticate", k.challenge("", "", k.cfg.ChallengeScope))
		WriteJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token", "error_description": "Missing Authorization header"})
		return
	}
	scopes, valid, moved := k.lookupToken(tok)
	if !valid || k.rejectAll.Load() {
		desc := RejectedDescription
		if moved {
			desc = MovedDescription
		}
		w.Header().Set("WWW-Authenticate", k.challenge("invalid_token", desc, k.cfg.ChallengeScope))
		WriteJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token"})
		k.noteRefused(r.Method == http.MethodPost)
		return
	}
	if k.cfg.ForbidAll {
		WriteJSON(w, http.StatusForbidden, map[string]string{"error": "access_denied", "error_description": "tenant suspended"})
		return
	}
	if k.cfg.AlwaysTooLittle {
		w.Header().Set("WWW-Authenticate", k.challenge("insufficient_scope", "Scope upgrade will never succeed", k.cfg.ChallengeScope))
		WriteJSON(w, http.StatusForbidden, map[string]string{"error": "insufficient_scope"})
		return
	}
	if need := k.missingScopes(body, scopes); need != nil {
		w.Header().Set("WWW-Authenticate", k.challenge("insufficient_scope", "needs more scope", need))
		status := http.StatusForbidden
		if k.cfg.ScopeWith401 {
			status = http.StatusUnauthorized
		}
		WriteJSON(w, status, map[string]string{"error": "insufficient_scope"})
		return
	}
	k.served.Add(1)
	if k.cfg.Resource == nil {
		WriteJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{}})
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	k.cfg.Resource.ServeHTTP(w, r)
}

// missingScopes returns the scopes the JSON-RPC method in body needs
// when held lacks one of them, else nil.
func (k *Kit) missingScopes(body []byte, held []string) []string {
	if k.cfg.NeedScopes == nil {
		return nil
	}
	var msg struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &msg)
	need := k.cfg.NeedScopes(msg.Method)
	for _, s := range need {
		if !slices.Contains(held, s) {
			return need
		}
	}
	return nil
}

// WriteJSON writes v as a JSON answer with the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
