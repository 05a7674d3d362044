package loadgen

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"text/template"
)

// TemplateError is an argument template that does not parse or does not
// render: a mistake in the command line or scenario, found before the
// run starts.
type TemplateError struct {
	Request string // the request the template belongs to
	// Flow and Step name the flow step it belongs to instead.
	Flow, Step string
	Err        error
}

func (e *TemplateError) Error() string {
	if e.Flow != "" {
		return fmt.Sprintf("flow %q step %s: argument template: %s", e.Flow, e.Step, plainTemplateError(e.Err))
	}
	return "request " + e.Request + ": argument template: " + plainTemplateError(e.Err)
}

func (e *TemplateError) Unwrap() error { return e.Err }

// templateFields is what a template can name, for the message about a
// field it cannot.
const templateFields = ".N, .Session, .SessionName, .Conn, .Worker, .Row, .Vars"

var (
	missingField = regexp.MustCompile(`can't evaluate field (\w+) in type \S+`)
	execPrefix   = regexp.MustCompile(`^template: [^:]*:\d+(:\d+)?: executing "[^"]*" at <([^>]*)>: `)
	parsePrefix  = regexp.MustCompile(`^(template [^:]*: )?template: [^:]*:(\d+): `)
)

// plainTemplateError words text/template's errors for the user: without
// the Go type the template runs on, and saying which fields there are.
func plainTemplateError(err error) string {
	msg := err.Error()
	var ee template.ExecError
	if errors.As(err, &ee) {
		msg = ee.Err.Error()
	}
	if m := execPrefix.FindStringSubmatch(msg); m != nil {
		msg = "at " + m[2] + ": " + strings.TrimPrefix(msg, m[0])
	}
	msg = parsePrefix.ReplaceAllString(msg, "line $2: ")
	if m := missingField.FindStringSubmatch(msg); m != nil {
		msg = strings.Replace(msg, m[0], "there is no field "+m[1]+" (the fields are "+templateFields+")", 1)
	}
	return msg
}
