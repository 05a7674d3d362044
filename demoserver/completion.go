package demoserver

import (
	"strconv"
	"strings"

	"github.com/mcpengine/mcpengine/messages"
)

// maxCompletionValues is the specification's cap on returned values.
const maxCompletionValues = 100

var (
	completionNames     = []string{"Alice", "Albert", "Bob", "Carol", "Charlie", "Dave", "Eve", "Mallory", "Trent", "Walter"}
	completionStyles    = []string{"brief", "bullet-points", "detailed"}
	completionLanguages = []string{"c", "c++", "go", "java", "javascript", "python", "rust", "typescript"}
	completionItemIDs   = func() []string {
		ids := make([]string, 0, 150)
		for i := 1; i <= 150; i++ {
			ids = append(ids, strconv.Itoa(i))
		}
		return ids
	}()
)

// completionValues returns the fixed list for a reference's argument.
func completionValues(ref messages.CompleteReference, arg string) ([]string, *messages.WireError) {
	switch ref.Type {
	case messages.RefPrompt:
		switch ref.Name + "/" + arg {
		case "greet/name":
			return completionNames, nil
		case "summarize/style":
			return completionStyles, nil
		case "code_review/language":
			return completionLanguages, nil
		}
		switch ref.Name {
		case "greet", "summarize", "code_review", "hello":
			return nil, nil
		}
		return nil, invalidParams("unknown prompt: " + ref.Name)
	case messages.RefResource:
		switch ref.URI + "/" + arg {
		case itemTemplate + "/id":
			return completionItemIDs, nil
		case userTemplate + "/name":
			return completionNames, nil
		}
		if ref.URI == itemTemplate || ref.URI == userTemplate {
			return nil, nil
		}
		return nil, invalidParams("unknown resource template: " + ref.URI)
	}
	return nil, invalidParams("unknown reference type: " + ref.Type)
}

// handleComplete completes prompt arguments (greet/name, summarize/style,
// code_review/language) and template variables (demo://item/{id} id 1..150,
// demo://user/{name}/profile name) by case-insensitive prefix, at most 100
// values with total and hasMore.
func handleComplete(r *request, buf []byte) ([]byte, *messages.WireError) {
	var p messages.CompleteParams
	if werr := decodeParams(r.params, &p); werr != nil {
		return buf, werr
	}
	all, werr := completionValues(p.Ref, p.Argument.Name)
	if werr != nil {
		return buf, werr
	}
	prefix := strings.ToLower(p.Argument.Value)
	values := make([]string, 0, 8)
	total := 0
	for _, v := range all {
		if strings.HasPrefix(strings.ToLower(v), prefix) {
			total++
			if len(values) < maxCompletionValues {
				values = append(values, v)
			}
		}
	}
	res := messages.CompleteResult{Completion: messages.Completion{Values: values, Total: &total, HasMore: total > len(values)}}
	return appendMarshal(buf, &res)
}
