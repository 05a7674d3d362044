package messages

import (
	"errors"
	"fmt"
	"strings"
)

// Error codes of the 2026-07-28 era.
const (
	// CodeHeaderMismatch: the HTTP headers do not match the body (or a
	// required header is missing or malformed). HTTP status 400.
	CodeHeaderMismatch = -32020
	// CodeMissingClientCapability: the request needs a client capability
	// the request's _meta did not declare; data.requiredCapabilities.
	CodeMissingClientCapability = -32021
	// CodeUnsupportedProtocolVersion: the server does not speak the
	// requested version; data.supported lists what it does.
	CodeUnsupportedProtocolVersion = -32022
)

// Sentinels for errors.Is; compare by code only.
var (
	ErrHeaderMismatch             = &WireError{Code: CodeHeaderMismatch, Message: "header mismatch"}
	ErrMissingClientCapability    = &WireError{Code: CodeMissingClientCapability, Message: "missing required client capability"}
	ErrUnsupportedProtocolVersion = &WireError{Code: CodeUnsupportedProtocolVersion, Message: "unsupported protocol version"}
)

// UnsupportedVersionData is the data of a -32022 error.
type UnsupportedVersionData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

// MissingCapabilityData is the data of a -32021 error.
type MissingCapabilityData struct {
	RequiredCapabilities ClientCapabilities `json:"requiredCapabilities"`
}

// UnsupportedVersionError is a -32022 answer with its data decoded. It is
// permanent: sending the same version again cannot succeed.
type UnsupportedVersionError struct {
	UnsupportedVersionData
	Wire *WireError
}

func (e *UnsupportedVersionError) Error() string {
	return fmt.Sprintf("mcpengine: the server does not support protocol version %q (it supports: %s)",
		e.Requested, strings.Join(e.Supported, ", "))
}
func (e *UnsupportedVersionError) Unwrap() error { return e.Wire }

// Permanent marks the error for the supervisor: never retried.
func (e *UnsupportedVersionError) Permanent() bool { return true }

// ErrorType is the error's error.type in telemetry.
func (e *UnsupportedVersionError) ErrorType() string { return "unsupported_protocol_version" }

// MissingCapabilityError is a -32021 answer with its data decoded. It is
// permanent: the capabilities a session declares do not change.
type MissingCapabilityError struct {
	MissingCapabilityData
	Wire *WireError
}

func (e *MissingCapabilityError) Error() string {
	raw, _ := Marshal(&e.RequiredCapabilities)
	return fmt.Sprintf("mcpengine: the server requires client capabilities %s: %s", raw, e.Wire.Message)
}
func (e *MissingCapabilityError) Unwrap() error { return e.Wire }

// Permanent marks the error for the supervisor: never retried.
func (e *MissingCapabilityError) Permanent() bool { return true }

// ErrorType is the error's error.type in telemetry.
func (e *MissingCapabilityError) ErrorType() string { return "missing_client_capability" }

// HeaderMismatchError is a -32020 answer: the server read HTTP headers
// that do not match the body. It is a defect of the client or of an
// intermediary, so the request fails alone; it is not retried.
type HeaderMismatchError struct {
	Wire *WireError
}

func (e *HeaderMismatchError) Error() string {
	return "mcpengine: the server refused the request's HTTP headers: " + e.Wire.Message
}
func (e *HeaderMismatchError) Unwrap() error { return e.Wire }

// ErrorType is the error's error.type in telemetry.
func (e *HeaderMismatchError) ErrorType() string { return "header_mismatch" }

// TypedError returns the typed error for the codes whose data the engine
// decodes (-32020, -32021, -32022 and 2025-11-25's -32042) and w itself for every other code,
// so callers match either with errors.As or, by code, with errors.Is. Data
// that does not decode leaves the typed error with what could be read.
func TypedError(w *WireError) error {
	if w == nil {
		return nil
	}
	switch w.Code {
	case CodeUnsupportedProtocolVersion:
		e := &UnsupportedVersionError{Wire: w}
		if len(w.Data) > 0 {
			_ = Unmarshal(w.Data, &e.UnsupportedVersionData)
		}
		return e
	case CodeMissingClientCapability:
		e := &MissingCapabilityError{Wire: w}
		if len(w.Data) > 0 {
			_ = Unmarshal(w.Data, &e.MissingCapabilityData)
		}
		return e
	case CodeHeaderMismatch:
		return &HeaderMismatchError{Wire: w}
	case CodeURLElicitationRequired:
		e := &URLElicitationRequiredError{Wire: w}
		if len(w.Data) > 0 {
			_ = Unmarshal(w.Data, e)
		}
		return e
	}
	return w
}

// AsUnsupportedVersion finds a -32022 in err's chain, typed or still a
// *WireError, and returns it typed.
func AsUnsupportedVersion(err error) (*UnsupportedVersionError, bool) {
	var u *UnsupportedVersionError
	if errors.As(err, &u) {
		return u, true
	}
	var w *WireError
	if errors.As(err, &w) && w.Code == CodeUnsupportedProtocolVersion {
		u, ok := TypedError(w).(*UnsupportedVersionError)
		return u, ok
	}
	return nil, false
}
