package actors

import (
	"errors"
	"net/http"

	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// authRefused returns the *AuthRefusedError a handshake failure stands
// for when it is a transport's synthesized answer carrying HTTP 401 or
// 403, or nil.
func authRefused(err error) *mcperr.AuthRefusedError {
	var we *messages.WireError
	if !errors.As(err, &we) || we.Code != transport.CodeRequestFailed || len(we.Data) == 0 {
		return nil
	}
	var f transport.RequestFailure
	if messages.Unmarshal(we.Data, &f) != nil {
		return nil
	}
	if f.Status != http.StatusUnauthorized && f.Status != http.StatusForbidden {
		return nil
	}
	return &mcperr.AuthRefusedError{Status: f.Status, Reason: f.Reason, Cause: err}
}
