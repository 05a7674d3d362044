package actors

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/oauth"
	"github.com/mcpengine/mcpengine/transport"
)

// AuthRefusedError: the server answered the handshake with HTTP 401 or
// 403 and nothing below the session cured it (no OAuth configured, or a
// static credential it refuses). Reconnecting would send the same
// credential again, so it is permanent. It matches oauth.ErrUnauthorized
// (the root's ErrUnauthorized), as a refusal OAuth could not cure does.
type AuthRefusedError struct {
	Status int
	Reason string
	Cause  error
}

func (e *AuthRefusedError) Error() string {
	return fmt.Sprintf("mcpengine: the server refused the handshake's credentials (HTTP %d %s): %s", e.Status, http.StatusText(e.Status), e.Reason)
}

func (e *AuthRefusedError) Unwrap() []error { return []error{oauth.ErrUnauthorized, e.Cause} }

// Permanent marks the error for supervisor.Classify: never retried.
func (e *AuthRefusedError) Permanent() bool { return true }

// ErrorType is the error's error.type in telemetry.
func (e *AuthRefusedError) ErrorType() string { return "unauthorized" }

// authRefused returns the *AuthRefusedError a handshake failure stands
// for when it is a transport's synthesized answer carrying HTTP 401 or
// 403, or nil.
func authRefused(err error) *AuthRefusedError {
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
	return &AuthRefusedError{Status: f.Status, Reason: f.Reason, Cause: err}
}
