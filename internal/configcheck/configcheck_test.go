package configcheck

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSuggest(t *testing.T) {
	known := []string{"command", "args", "env", "cwd", "url", "headers", "deny", "allow"}
	for name, want := range map[string]string{
		"comand": "command", "Command": "command", "dney": "deny", "agrs": "args", "URL": "url",
		"disabled": "", "autoApprove": "", "timeout": "",
	} {
		assert.Equal(t, want, Suggest(name, known), name)
	}
}

func TestPositionOf(t *testing.T) {
	data := []byte("{\n\t\"a\": 1,\r\n  x\n}")
	p := PositionOf(data, 14)
	assert.Equal(t, Position{Line: 3, Column: 3, Text: "  x"}, p)
	assert.Equal(t, "  ^", p.Caret())
	p = PositionOf(data, 2)
	assert.Equal(t, 2, p.Line)
	assert.Equal(t, "\t\"a\": 1,", p.Text)
	assert.Equal(t, "^", p.Caret())
	assert.Equal(t, 4, PositionOf(data, 99).Line, "past the end: the last line")
}

func TestUnknownFields(t *testing.T) {
	type inner struct {
		Deny []string `json:"deny"`
	}
	type doc struct {
		Servers map[string]struct {
			Command string           `json:"command"`
			Policy  *inner           `json:"policy"`
			List    []inner          `json:"list"`
			Any     any              `json:"any"`
			Skip    string           `json:"-"`
			Nested  map[string]inner `json:"nested"`
		} `json:"servers"`
	}
	data := []byte(`{"top": {"x": 1}, "servers": {"s": {"comand": "x", "policy": {"dney": []},
		"list": [{"deny": []}, {"zz": 1}], "any": {"whatever": 1}, "nested": {"k": {"q": 2}}, "Skip": 1}}}`)
	found, err := UnknownFields(data, reflect.TypeFor[doc]())
	require.NoError(t, err)
	var got []string
	for _, u := range found {
		got = append(got, u.Name+"@"+string(data[u.Offset:u.Offset+int64(len(u.Name))+1])+":"+u.Suggestion)
	}
	assert.Equal(t, []string{`top@"top:`, `comand@"comand:command`, `dney@"dney:deny`, `zz@"zz:`, `q@"q:`, `Skip@"Skip:`}, got)
	assert.Equal(t, []string{"servers", "s", "nested", "k"}, found[4].Path)
}
