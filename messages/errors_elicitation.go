package messages

import (
	"fmt"
	"strings"
)

// URLElicitationRequiredError is a -32042 answer (2025-11-25) with its
// data decoded: the request cannot go on until the user completes the
// listed URL-mode elicitations (open each URL in a browser). Retrying the
// same request after that may succeed, so it is not permanent; retrying
// before that cannot.
type URLElicitationRequiredError struct {
	Elicitations []ElicitParams `json:"elicitations"`
	Wire         *WireError     `json:"-"`
}

func (e *URLElicitationRequiredError) Error() string {
	urls := make([]string, 0, len(e.Elicitations))
	for _, el := range e.Elicitations {
		urls = append(urls, el.URL)
	}
	return fmt.Sprintf("mcpengine: the server requires the user to open %s first: %s", strings.Join(urls, ", "), e.Wire.Message)
}
func (e *URLElicitationRequiredError) Unwrap() error { return e.Wire }

// ErrorType is the error's error.type in telemetry.
func (e *URLElicitationRequiredError) ErrorType() string { return "url_elicitation_required" }
