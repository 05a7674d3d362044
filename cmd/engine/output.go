package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen/report"
	"github.com/mcpengine/mcpengine/messages"
)

// printRawJSON prints a JSON document indented, with a final newline.
func printRawJSON(w io.Writer, raw []byte) error {
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return fmt.Errorf("server sent invalid JSON: %w", err)
	}
	buf.WriteByte('\n')
	_, err := w.Write(buf.Bytes())
	return err
}

// printJSON encodes v as the engine encodes messages (required arrays as
// [] rather than null) and prints it indented.
func printJSON(w io.Writer, v any) error {
	raw, err := messages.Marshal(v)
	if err != nil {
		return err
	}
	return printRawJSON(w, raw)
}

// printTable prints rows under a header, columns aligned.
func printTable(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		for i := range r {
			r[i] = report.OneLine(r[i])
		}
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printContent prints content blocks for a human: text as text, anything
// else as a one-line summary.
func printContent(w io.Writer, blocks []messages.ContentBlock) {
	for _, b := range blocks {
		switch b.Type {
		case "text":
			printText(w, b.Text)
		case "image", "audio":
			fmt.Fprintf(w, "[%s: %s, %s]\n", b.Type, orDash(b.MimeType), base64Size(b.Data))
		case "resource_link":
			fmt.Fprintf(w, "[resource link: %s%s]\n", b.URI, nameSuffix(b.Name))
		case "resource":
			if b.Resource == nil {
				fmt.Fprintln(w, "[embedded resource]")
				continue
			}
			printResourceContents(w, *b.Resource)
		default:
			fmt.Fprintf(w, "[%s content]\n", b.Type)
		}
	}
}

func nameSuffix(name string) string {
	if name == "" {
		return ""
	}
	return " (" + name + ")"
}

// printResourceContents prints a text resource as text and summarizes a
// binary one.
func printResourceContents(w io.Writer, c messages.ResourceContents) {
	if c.IsBlob() {
		fmt.Fprintf(w, "[binary %s: %s, %s; use --json for the base64 data]\n", c.URI, orDash(c.MimeType), base64Size(c.Blob))
		return
	}
	printText(w, c.Text)
}

// printText prints s and ends it with a newline if it has none.
func printText(w io.Writer, s string) {
	io.WriteString(w, s)
	if !strings.HasSuffix(s, "\n") {
		io.WriteString(w, "\n")
	}
}

func base64Size(data string) string {
	if n, err := base64.StdEncoding.DecodeString(data); err == nil {
		return fmt.Sprintf("%d bytes", len(n))
	}
	return fmt.Sprintf("%d base64 characters", len(data))
}

// contentText joins the text blocks of a tool result (for error messages).
func contentText(blocks []messages.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
			parts = append(parts, strings.TrimSpace(b.Text))
		}
	}
	return strings.Join(parts, "; ")
}

// requestError turns a request's failure into a one-line message that
// says what failed and why.
func requestError(what string, err error) error {
	var (
		rpc     *mcpengine.RPCError
		timeout *mcpengine.TimeoutError
		lost    *mcpengine.ConnectionLostError
		closed  *mcpengine.ClosedError
	)
	switch {
	case errors.As(err, &rpc):
		name := ""
		if n, ok := report.RPCCodeNames[rpc.Code]; ok {
			name = " (" + n + ")"
		}
		msg := fmt.Sprintf("%s failed: server returned error %d%s: %s", what, rpc.Code, name, rpc.Message)
		if len(rpc.Data) > 0 && string(rpc.Data) != "null" {
			data := string(rpc.Data)
			if len(data) > 200 {
				data = data[:200] + "…"
			}
			msg += " (data: " + data + ")"
		}
		return errors.New(msg)
	case errors.As(err, &timeout) && timeout.After > 0:
		return fmt.Errorf("%s timed out after %v (raise it with --timeout)", what, timeout.After)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s timed out", what)
	case errors.As(err, &lost):
		return fmt.Errorf("%s failed: the connection to the server was lost: %v", what, lost.Cause)
	case errors.As(err, &closed):
		if closed.Cause != nil {
			return fmt.Errorf("%s failed: the session closed: %v", what, closed.Cause)
		}
		return fmt.Errorf("%s failed: the session closed", what)
	}
	return fmt.Errorf("%s failed: %w", what, err)
}

// fmtDuration rounds a duration for people: 3 significant digits, the
// same rendering as the load reports.
func fmtDuration(d time.Duration) string { return loadgen.FormatDuration(d) }
