package loadgen

import (
	"slices"
	"text/template"
	"text/template/parse"
)

// varRefs lists the variables a request's templates name as .Vars.NAME;
// uses is also set when they use .Vars otherwise (index .Vars "x"),
// which cannot be checked before the run.
func (r *request) varRefs() (names []string, uses bool) {
	var ts []*template.Template
	if r.text != nil {
		ts = append(ts, r.text)
	}
	if r.uri != nil {
		ts = append(ts, r.uri)
	}
	ts = append(ts, r.tree.templates()...)
	for _, t := range ts {
		if t.Tree == nil {
			continue
		}
		walkVars(t.Tree.Root, func(name string) {
			uses = true
			if name != "" && !slices.Contains(names, name) {
				names = append(names, name)
			}
		})
	}
	return names, uses
}

// templates are the templated strings of an argument tree.
func (n *argNode) templates() []*template.Template {
	if n == nil {
		return nil
	}
	var out []*template.Template
	switch n.kind {
	case 's':
		out = append(out, n.tmpl)
	case 'o':
		for _, f := range n.object {
			out = append(out, f.node.templates()...)
		}
	case 'a':
		for _, e := range n.array {
			out = append(out, e.templates()...)
		}
	}
	return out
}

// walkVars calls found for every use of .Vars under n: with the name
// for .Vars.NAME, with "" for .Vars alone.
func walkVars(n parse.Node, found func(string)) {
	switch x := n.(type) {
	case *parse.ListNode:
		if x == nil {
			return
		}
		for _, c := range x.Nodes {
			walkVars(c, found)
		}
	case *parse.ActionNode:
		walkVars(x.Pipe, found)
	case *parse.PipeNode:
		if x == nil {
			return
		}
		for _, c := range x.Cmds {
			walkVars(c, found)
		}
	case *parse.CommandNode:
		for _, a := range x.Args {
			walkVars(a, found)
		}
	case *parse.FieldNode:
		fieldVars(x.Ident, found)
	case *parse.ChainNode:
		walkVars(x.Node, found)
	case *parse.IfNode:
		walkBranch(&x.BranchNode, found)
	case *parse.RangeNode:
		walkBranch(&x.BranchNode, found)
	case *parse.WithNode:
		walkBranch(&x.BranchNode, found)
	case *parse.TemplateNode:
		walkVars(x.Pipe, found)
	}
}

func walkBranch(b *parse.BranchNode, found func(string)) {
	walkVars(b.Pipe, found)
	walkVars(b.List, found)
	if b.ElseList != nil {
		walkVars(b.ElseList, found)
	}
}

func fieldVars(ident []string, found func(string)) {
	if len(ident) == 0 || ident[0] != "Vars" {
		return
	}
	if len(ident) > 1 {
		found(ident[1])
		return
	}
	found("")
}
