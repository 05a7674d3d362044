package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// clientFeatures are the server requests the one-off commands (call, read,
// prompt) can answer from a terminal: roots from --root, elicitation by
// asking the user when stdin is a terminal. Sampling needs a language
// model the CLI does not have; a server that requires it gets a message
// saying so (capabilityError).
type clientFeatures struct {
	roots []string

	// Set by apply from the process's own stdin and stderr.
	interactive bool
}

// isInteractive reports whether elicitation is answered on the terminal
// (false for a command without features).
func (c *clientFeatures) isInteractive() bool { return c != nil && c.interactive }

func (c *clientFeatures) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&c.roots, "root", nil, "a directory the server may work in, answered to its roots/list (repeatable)")
}

// apply declares and answers what the command can: the --root
// directories as roots, and elicitation when stdin is a terminal (the
// prompts go to stderr, so stdout keeps the result alone).
func (c *clientFeatures) apply(cfg *mcpengine.Config, stdin *os.File, stderr io.Writer) error {
	roots, err := rootsOf(c.roots)
	if err != nil {
		return err
	}
	if roots != nil {
		cfg.Roots = roots
	}
	if stdin != nil && term.IsTerminal(int(stdin.Fd())) {
		c.interactive = true
		cfg.Elicitation = newTerminalPrompter(stdin, stderr).elicit
	}
	return nil
}

// rootsOf turns --root directories into file:// roots named after the
// directory; each must exist.
func rootsOf(dirs []string) ([]messages.Root, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	roots := make([]messages.Root, 0, len(dirs))
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, usagef("--root %s: %v", d, err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, usagef("--root %s: %v", d, err)
		}
		if !st.IsDir() {
			return nil, usagef("--root %s: not a directory", d)
		}
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
		roots = append(roots, messages.Root{URI: u.String(), Name: filepath.Base(abs)})
	}
	return roots, nil
}

// capabilityError says, for a request the server refused because this
// client did not declare a capability (-32021), which capability and what
// the user can do; nil for any other error.
func (c *clientFeatures) capabilityError(what string, err error) error {
	var mc *mcpengine.MissingCapabilityError
	if !errors.As(err, &mc) {
		return nil
	}
	var needs []string
	caps := mc.RequiredCapabilities
	if caps.Sampling != nil {
		needs = append(needs, capabilityHint(messages.MethodSamplingCreateMessage, c.isInteractive()))
	}
	if caps.Elicitation != nil {
		needs = append(needs, capabilityHint(messages.MethodElicitationCreate, c.isInteractive()))
	}
	if caps.Roots != nil {
		needs = append(needs, capabilityHint(messages.MethodRootsList, c.isInteractive()))
	}
	if len(needs) == 0 {
		return nil
	}
	return fmt.Errorf("%s failed: the server requires a client capability (error %d): %s",
		what, messages.CodeMissingClientCapability, strings.Join(needs, "; "))
}

// capabilityHint names the capability a server request method needs and
// what the user can do about it.
func capabilityHint(method string, interactive bool) string {
	switch method {
	case messages.MethodSamplingCreateMessage:
		return "sampling: the server asks the client for an LLM completion, which the engine CLI cannot give (it has no language model); call the tool from a program that sets mcpengine.Config.Sampling"
	case messages.MethodElicitationCreate:
		if interactive {
			return "elicitation: the server asks you for input"
		}
		return "elicitation: the server asks you for input, which the CLI does only when stdin is a terminal; run the command in one"
	case messages.MethodRootsList:
		return "roots: the server asks for the directories it may work in; give them with --root DIR (repeatable)"
	}
	return method
}

// serverRequestHint explains a tool error that says the client did not
// answer a server request (servers of the handshake eras ask anyway and
// report the client's method-not-found); "" when the text says no such
// thing.
func serverRequestHint(text string, interactive bool) string {
	for _, m := range []string{messages.MethodSamplingCreateMessage, messages.MethodElicitationCreate, messages.MethodRootsList} {
		if strings.Contains(text, m) && strings.Contains(strings.ToLower(text), "method not found") {
			return "this client did not answer " + capabilityHint(m, interactive)
		}
	}
	return ""
}
