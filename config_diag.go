package mcpengine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcpengine/mcpengine/internal/configcheck"
)

// ConfigError is a mistake in an mcpServers document, said so that the
// person who wrote the file can find and fix it: the file, line and
// column, what is wrong, and the line itself.
type ConfigError struct {
	File   string // set by LoadConfigFile (and the gateway's LoadConfig)
	Line   int    // 1-based; 0 when the mistake is in no one place
	Column int    // 1-based, in bytes
	Msg    string
	Text   string // the line at Line, without its newline
	Caret  string // a line pointing at Column under Text
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	file := e.File
	if file == "" {
		file = "config"
	}
	b.WriteString(file)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Line > 0 && strings.TrimSpace(e.Text) != "" {
		b.WriteString("\n\t")
		b.WriteString(e.Text)
		b.WriteString("\n\t")
		b.WriteString(e.Caret)
	}
	return b.String()
}

// Permanent tells retrying callers that only an edit of the file cures it.
func (e *ConfigError) Permanent() bool { return true }

// ErrorType names the error in the engine's error taxonomy.
func (e *ConfigError) ErrorType() string { return "config" }

// NewConfigError locates msg at byte offset off of data (the gateway's
// own section of the same file reports its mistakes with it).
func NewConfigError(data []byte, off int64, msg string) *ConfigError {
	p := configcheck.PositionOf(data, off)
	return &ConfigError{Line: p.Line, Column: p.Column, Msg: msg, Text: p.Text, Caret: p.Caret()}
}

// withFile names the file in a ConfigError err holds.
func withFile(err error, file string) error {
	var ce *ConfigError
	if errors.As(err, &ce) && ce.File == "" {
		ce.File = file
	}
	return err
}

// syntaxError locates a JSON syntax error, or returns nil for a document
// encoding/json accepts.
func syntaxError(data []byte) error {
	if json.Valid(data) {
		return nil
	}
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return nil
	}
	// Offset counts the bytes read, the offending one included.
	msg := strings.TrimPrefix(se.Error(), "json: ")
	return NewConfigError(data, max(se.Offset-1, 0), "JSON syntax error: "+msg)
}

// typeError locates a value of the wrong JSON kind (a string where a list
// is expected, ...) by decoding data again with encoding/json, which says
// where; nil when it finds none.
func typeError(data []byte) error {
	var f ConfigFile
	err := json.Unmarshal(data, &f)
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return nil
	}
	// Field is the path of struct fields only (no map keys): the server
	// is found by where the value is.
	where := "the document"
	if field := strings.TrimPrefix(te.Field, "mcpServers."); field != "" {
		where = fmt.Sprintf("%q", field)
		if server, ok := serverAt(data, te.Offset-1); ok && field != "mcpServers" {
			where = fmt.Sprintf("%q of server %q", field, server)
		}
	}
	return NewConfigError(data, max(te.Offset-1, 0),
		fmt.Sprintf("%s must be %s, not a JSON %s", where, jsonKind(te.Type), te.Value))
}

// serverAt names the server of mcpServers whose value holds byte offset
// off of data, a valid document.
func serverAt(data []byte, off int64) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return "", false
		}
		if key != "mcpServers" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return "", false
			}
			continue
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return "", false
		}
		for dec.More() {
			name, err := dec.Token()
			if err != nil {
				return "", false
			}
			start := dec.InputOffset()
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return "", false
			}
			if n, ok := name.(string); ok && start <= off && off < dec.InputOffset() {
				return n, true
			}
		}
		return "", false
	}
	return "", false
}

// jsonKind says in JSON terms what a Go type decodes from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list (" + strings.TrimPrefix(jsonKind(t.Elem()), "a ") + " items)"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another kind of value"
}

var serverConfigType = reflect.TypeFor[ServerConfig]()

// noServersError is the error of a document without an "mcpServers"
// object, pointing at a top-level key that was probably meant for it
// (a misspelling, or VS Code's "servers").
func noServersError(data []byte) error {
	const want = `no "mcpServers" object (the servers go in {"mcpServers": {"name": {"command": ...}}})`
	found, err := configcheck.UnknownFields(data, reflect.TypeFor[ConfigFile]())
	if err != nil {
		return &ConfigError{Msg: want}
	}
	for _, u := range found {
		if len(u.Path) > 0 {
			continue
		}
		switch {
		case u.Name == "servers":
			return NewConfigError(data, u.Offset, want+`; this file's "servers" is VS Code's name for it: rename it "mcpServers"`)
		case u.Suggestion == "mcpServers":
			return NewConfigError(data, u.Offset, fmt.Sprintf(`%s; did you mean "mcpServers" for %q?`, want, u.Name))
		}
	}
	return &ConfigError{Msg: want}
}

// unknownFieldError reports the first key of data that no field of the
// configuration has and that is a mistake: a misspelling of a
// ServerConfig field, or any unknown key inside the objects only the
// engine reads (auth, tls, oauth, ...). Other keys of a server, and keys
// beside mcpServers, belong to other MCP clients sharing the file
// ("disabled", "autoApprove", ...) and are left alone. unknown maps each
// server to its unknown keys, for the error of a server that has neither
// a command nor a url.
func unknownFieldError(data []byte) (unknown map[string][]string, err error) {
	found, werr := configcheck.UnknownFields(data, reflect.TypeFor[ConfigFile]())
	if werr != nil {
		return nil, nil // the decoder says what is wrong
	}
	unknown = map[string][]string{}
	for _, u := range found {
		if len(u.Path) < 2 || u.Path[0] != "mcpServers" {
			continue // beside mcpServers: another client's
		}
		server := u.Path[1]
		if u.In == serverConfigType {
			unknown[server] = append(unknown[server], u.Name)
			if u.Suggestion == "" {
				continue
			}
		}
		if err != nil {
			continue
		}
		msg := fmt.Sprintf("unknown field %q in server %q", u.Name, server)
		if inner := u.Path[2:]; len(inner) > 0 {
			msg = fmt.Sprintf("unknown field %q in %q of server %q", u.Name, strings.Join(inner, "."), server)
		}
		if u.Suggestion != "" {
			msg += fmt.Sprintf("; did you mean %q?", u.Suggestion)
		} else {
			msg += fmt.Sprintf(" (known: %s)", strings.Join(configcheck.Known(u.In), ", "))
		}
		err = NewConfigError(data, u.Offset, msg)
	}
	return unknown, err
}
