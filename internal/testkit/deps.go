package testkit

import (
	"bufio"
	"bytes"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// ForbiddenLinks walks what a binary importing pkg links (`go list -deps`
// for this platform, with buildFlags such as "-tags", "a,b") and returns
// the import chain ("pkg → … → bad") of each package forbidden reports,
// a shortest one: the walk is breadth first. A forbidden package's own
// imports are not walked, as they would only repeat the finding.
func ForbiddenLinks(tb testing.TB, pkg string, forbidden func(string) bool, buildFlags ...string) []string {
	tb.Helper()
	graph := ImportGraph(tb, pkg, buildFlags...)
	if _, ok := graph[pkg]; !ok {
		tb.Fatalf("go list -deps did not report %s", pkg)
	}
	var found []string
	parent := map[string]string{pkg: ""}
	queue := []string{pkg}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, imp := range graph[p] {
			if _, seen := parent[imp]; seen {
				continue
			}
			parent[imp] = p
			if forbidden(imp) {
				found = append(found, ImportChain(parent, imp))
				continue
			}
			queue = append(queue, imp)
		}
	}
	return found
}

// ImportGraph is every non-standard package pkg depends on, with its
// imports, as the build for this platform sees it (what a binary links).
func ImportGraph(tb testing.TB, pkg string, buildFlags ...string) map[string][]string {
	tb.Helper()
	args := append([]string{"list", "-deps"}, buildFlags...)
	args = append(args, "-f", `{{if not .Standard}}{{.ImportPath}}{{range .Imports}} {{.}}{{end}}{{end}}`, pkg)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		var stderr []byte
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		tb.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	graph := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) > 0 {
			graph[f[0]] = f[1:]
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return graph
}

// ImportChain is the import path from a walk's start to pkg, given each
// package's parent in the walk.
func ImportChain(parent map[string]string, pkg string) string {
	var c []string
	for p := pkg; p != ""; p = parent[p] {
		c = append(c, p)
	}
	slices.Reverse(c)
	return strings.Join(c, " → ")
}
