package oauth

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/oauth2"
)

// ErrLoginRequired is the cause (errors.Is) of the UnauthorizedError
// returned when the authorization code grant needs a user and the
// Authorizer has no UserAgent: the CLI tells the user to log in.
var ErrLoginRequired = errors.New("oauth: login required (no user agent to run the authorization code grant)")

// message builds the text of an UnauthorizedError from its fields only;
// none of them may hold a token or secret (the constructors make sure).
func (e *UnauthorizedError) message() string {
	var b strings.Builder
	b.WriteString("oauth: unauthorized")
	if e.Reason != "" {
		b.WriteString(": ")
		b.WriteString(e.Reason)
	}
	if e.Status != 0 || e.Code != "" || e.Description != "" {
		b.WriteString(" (")
		sep := ""
		if e.Status != 0 {
			fmt.Fprintf(&b, "HTTP %d", e.Status)
			sep = ", "
		}
		if e.Code != "" {
			b.WriteString(sep + e.Code)
			sep = ", "
		}
		if e.Description != "" {
			b.WriteString(sep + e.Description)
		}
		b.WriteString(")")
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// unauthorized is the short constructor of the permanent failures.
func unauthorized(reason string, err error) *UnauthorizedError {
	return &UnauthorizedError{Reason: reason, Err: err}
}

// tokenEndpointError is an OAuth error answer of a token endpoint (RFC
// 6749 §5.2). It keeps only the status and the error code/description:
// the raw body of oauth2.RetrieveError may echo request material.
type tokenEndpointError struct {
	Status      int
	Code        string
	Description string
}

func (e *tokenEndpointError) Error() string {
	s := fmt.Sprintf("token endpoint answered HTTP %d", e.Status)
	if e.Code != "" {
		s += " " + e.Code
	}
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}

// sanitizeTokenError turns x/oauth2's error into a tokenEndpointError so
// that no response body reaches an error string; other errors (network,
// context) pass unchanged.
func sanitizeTokenError(err error) error {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return err
	}
	te := &tokenEndpointError{Code: re.ErrorCode, Description: re.ErrorDescription}
	if re.Response != nil {
		te.Status = re.Response.StatusCode
	}
	return te
}

// isOAuthRefusal reports whether err is the authorization server saying
// no (as opposed to a network failure worth returning as is).
func isOAuthRefusal(err error) bool {
	var te *tokenEndpointError
	return errors.As(err, &te)
}
