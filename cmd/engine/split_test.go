package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{``, nil},
		{`   `, nil},
		{`npx`, []string{"npx"}},
		{`  npx  -y   server  `, []string{"npx", "-y", "server"}},
		{"a\tb\nc", []string{"a", "b", "c"}},
		{`python -c 'print("hi there")'`, []string{"python", "-c", `print("hi there")`}},
		{`echo "a b" c`, []string{"echo", "a b", "c"}},
		{`echo "say \"hi\" \\ \$HOME \x"`, []string{"echo", `say "hi" \ $HOME \x`}},
		{`echo a\ b`, []string{"echo", "a b"}},
		{`echo '' ""`, []string{"echo", "", ""}},
		{`pre'fix'"ed"x`, []string{"prefixedx"}},
		{`echo $HOME ~ *.go ; | >`, []string{"echo", "$HOME", "~", "*.go", ";", "|", ">"}},
		{"a \\\nb", []string{"a", "b"}},
		{`'héllo wörld' ünï`, []string{"héllo wörld", "ünï"}},
		{`'it'\''s'`, []string{"it's"}},
	} {
		got, err := splitCommand(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}

func TestSplitCommandErrors(t *testing.T) {
	for _, in := range []string{`echo 'abc`, `echo "abc`, `echo abc\`, `"a\"`} {
		_, err := splitCommand(in)
		assert.Error(t, err, in)
	}
}
