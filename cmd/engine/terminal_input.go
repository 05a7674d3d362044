package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// terminalPrompter answers form-mode elicitation by asking the user, one
// field at a time, on a terminal: the server's message, then whether to
// answer at all (no: decline; end of input: cancel), then each field of
// the requested schema, checked against its type and enum and asked
// again until it fits.
type terminalPrompter struct {
	out io.Writer

	mu    sync.Mutex // one elicitation at a time on the terminal
	lines chan string
	start sync.Once
	in    io.Reader
}

func newTerminalPrompter(in io.Reader, out io.Writer) *terminalPrompter {
	return &terminalPrompter{in: in, out: out, lines: make(chan string)}
}

// errEndOfInput ends an elicitation at the end of stdin (Ctrl-D).
var errEndOfInput = errors.New("end of input")

// readLine returns the next line the user typed, or ctx's error if the
// request ends first. The reader goroutine is started on the first
// prompt and ends at stdin's end: a blocked read of a terminal cannot be
// interrupted, and a process that exits does not wait for it.
func (p *terminalPrompter) readLine(ctx context.Context) (string, error) {
	p.start.Do(func() {
		go func() { // owner: the prompter; ends at the end of input
			defer close(p.lines)
			sc := bufio.NewScanner(p.in)
			for sc.Scan() {
				p.lines <- sc.Text()
			}
		}()
	})
	select {
	case line, ok := <-p.lines:
		if !ok {
			return "", errEndOfInput
		}
		return strings.TrimSpace(line), nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// elicitField is one property of a requested schema, as the
// specification restricts them: a primitive, maybe with an enum, or an
// array of enum values.
type elicitField struct {
	Name        string
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Enum        []string `json:"enum"`
	Default     any      `json:"default"`
	Items       *struct {
		Enum []string `json:"enum"`
	} `json:"items"`
	required bool
}

// parseElicitSchema reads the fields of a requested schema in the
// server's order (a map would shuffle the questions).
func parseElicitSchema(raw messages.RawMessage) ([]elicitField, error) {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if len(raw) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if len(s.Properties) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("properties is not an object")
	}
	var fields []elicitField
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		f := elicitField{Name: tok.(string)}
		if err := dec.Decode(&f); err != nil {
			return nil, fmt.Errorf("property %q: %w", f.Name, err)
		}
		for _, r := range s.Required {
			f.required = f.required || r == f.Name
		}
		fields = append(fields, f)
	}
	return fields, nil
}

func (p *terminalPrompter) elicit(ctx context.Context, req *messages.ElicitParams) (*messages.ElicitResult, error) {
	fields, err := parseElicitSchema(req.RequestedSchema)
	if err != nil {
		return nil, &mcpengine.RPCError{Code: messages.CodeInvalidParams, Message: "requestedSchema: " + err.Error()}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.out, "\nThe server asks: %s\n", req.Message)
	answer, err := p.ask(ctx, "Answer it? [Y/n] (Ctrl-D cancels): ", func(s string) (any, error) {
		switch strings.ToLower(s) {
		case "", "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		}
		return nil, errors.New("answer y or n")
	})
	if errors.Is(err, errEndOfInput) {
		return &messages.ElicitResult{Action: messages.ElicitActionCancel}, nil
	}
	if err != nil {
		return nil, err
	}
	if answer == false {
		return &messages.ElicitResult{Action: messages.ElicitActionDecline}, nil
	}
	content := map[string]any{}
	for _, f := range fields {
		v, err := p.ask(ctx, f.question(), f.parse)
		if errors.Is(err, errEndOfInput) {
			return &messages.ElicitResult{Action: messages.ElicitActionCancel}, nil
		}
		if err != nil {
			return nil, err
		}
		if v != nil {
			content[f.Name] = v
		}
	}
	return &messages.ElicitResult{Action: messages.ElicitActionAccept, Content: content}, nil
}

// ask prints question and reads lines until parse accepts one.
func (p *terminalPrompter) ask(ctx context.Context, question string, parse func(string) (any, error)) (any, error) {
	for {
		fmt.Fprint(p.out, question)
		line, err := p.readLine(ctx)
		if err != nil {
			fmt.Fprintln(p.out)
			return nil, err
		}
		v, err := parse(line)
		if err == nil {
			return v, nil
		}
		fmt.Fprintf(p.out, "  %v\n", err)
	}
}

func (f elicitField) question() string {
	var b strings.Builder
	label := f.Title
	if label == "" {
		label = f.Name
	}
	b.WriteString(label)
	if f.Description != "" {
		fmt.Fprintf(&b, " (%s)", f.Description)
	}
	switch {
	case len(f.Enum) > 0:
		fmt.Fprintf(&b, " [one of: %s]", strings.Join(f.Enum, ", "))
	case f.Type == "array" && f.Items != nil && len(f.Items.Enum) > 0:
		fmt.Fprintf(&b, " [any of, comma-separated: %s]", strings.Join(f.Items.Enum, ", "))
	case f.Type == "boolean":
		b.WriteString(" [y/n]")
	case f.Type == "integer" || f.Type == "number":
		b.WriteString(" [a number]")
	}
	if f.Default != nil {
		fmt.Fprintf(&b, " (default %v)", f.Default)
	}
	if f.required {
		b.WriteString(" (required)")
	}
	b.WriteString(": ")
	return b.String()
}

// parse checks a typed answer against the field; nil, nil leaves an
// optional field out (or takes its default).
func (f elicitField) parse(s string) (any, error) {
	if s == "" {
		switch {
		case f.Default != nil:
			return f.Default, nil
		case f.required:
			return nil, errors.New("required")
		}
		return nil, nil
	}
	switch {
	case len(f.Enum) > 0:
		for _, e := range f.Enum {
			if e == s {
				return s, nil
			}
		}
		return nil, fmt.Errorf("one of: %s", strings.Join(f.Enum, ", "))
	case f.Type == "array":
		var vals []string
		for _, v := range strings.Split(s, ",") {
			v = strings.TrimSpace(v)
			if f.Items != nil && len(f.Items.Enum) > 0 && !slices.Contains(f.Items.Enum, v) {
				return nil, fmt.Errorf("%q is not one of: %s", v, strings.Join(f.Items.Enum, ", "))
			}
			vals = append(vals, v)
		}
		return vals, nil
	case f.Type == "boolean":
		switch strings.ToLower(s) {
		case "y", "yes", "true":
			return true, nil
		case "n", "no", "false":
			return false, nil
		}
		return nil, errors.New("answer y or n")
	case f.Type == "integer":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, errors.New("a whole number")
		}
		return n, nil
	case f.Type == "number":
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, errors.New("a number")
		}
		return n, nil
	}
	return s, nil
}
