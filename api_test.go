package mcpengine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPublicAPINamesNoActorsType keeps the root package the only door an
// embedder needs: no exported declaration (a type, an exported field, a
// function or method signature, a constant or variable and its value) of
// the root package mentions package actors, whose API carries no
// compatibility promise. Unexported fields may (CallOption's does).
func TestPublicAPINamesNoActorsType(t *testing.T) {
	fset := token.NewFileSet()
	for _, f := range parsePackage(t, fset, ".") {
		for _, leak := range actorsLeaks(f) {
			t.Errorf("%s: exported %s mentions package actors", fset.Position(leak.Pos()), leak.name)
		}
	}
}

// TestGoDocNamesNoActorsType checks the same on what `go doc -all` shows.
func TestGoDocNamesNoActorsType(t *testing.T) {
	out, err := exec.Command("go", "doc", "-all", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go doc: %v\n%s", err, out)
	}
	for i, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "actors.") {
			t.Errorf("go doc line %d names an actors type: %s", i+1, line)
		}
	}
}

type leak struct {
	ast.Node
	name string
}

// actorsLeaks lists the exported declarations of f that mention actors.
func actorsLeaks(f *ast.File) []leak {
	var out []leak
	check := func(name string, n ast.Node) {
		if mentionsActors(n) {
			out = append(out, leak{n, name})
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || (d.Recv != nil && !exportedReceiver(d.Recv)) {
				continue
			}
			check(d.Name.Name, d.Type)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						exportedParts(s.Name.Name, s.Type, check)
						if s.TypeParams != nil {
							check(s.Name.Name, s.TypeParams)
						}
					}
				case *ast.ValueSpec:
					for i, n := range s.Names {
						if !n.IsExported() {
							continue
						}
						if s.Type != nil {
							check(n.Name, s.Type)
						}
						if i < len(s.Values) {
							check(n.Name, s.Values[i])
						}
					}
				}
			}
		}
	}
	return out
}

// exportedParts checks a type's expression, skipping the unexported fields
// of structs and methods of interfaces.
func exportedParts(name string, typ ast.Expr, check func(string, ast.Node)) {
	var fields *ast.FieldList
	switch t := typ.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	default:
		check(name, typ)
		return
	}
	for _, f := range fields.List {
		if len(f.Names) == 0 { // embedded: exported through promotion
			check(name, f.Type)
			continue
		}
		for _, n := range f.Names {
			if n.IsExported() {
				check(name+"."+n.Name, f.Type)
			}
		}
	}
}

func exportedReceiver(recv *ast.FieldList) bool {
	t := recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}

func mentionsActors(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "actors" {
				found = true
			}
		}
		return !found
	})
	return found
}

// parsePackage parses the non-test Go files of dir.
func parsePackage(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	return files
}
