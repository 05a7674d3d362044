package main

import (
	"errors"
	"strings"
)

// splitCommand splits a command line into words the way a POSIX shell
// does for quoting, without running a shell: words are separated by
// unquoted blanks; '...' is literal; "..." is literal except for \" \\ \$
// \` and backslash-newline; an unquoted backslash quotes the next
// character. Nothing is expanded ($VAR, ~, globs, ;, |, > stay as they are).
func splitCommand(s string) ([]string, error) {
	var (
		words   []string
		cur     strings.Builder
		inWord  bool // cur holds a word, possibly empty ("")
		r       = []rune(s)
		escaped = func(i int) (rune, bool) {
			if i+1 < len(r) {
				return r[i+1], true
			}
			return 0, false
		}
	)
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\':
			n, ok := escaped(i)
			if !ok {
				return nil, errors.New("command ends with a lone backslash")
			}
			i++
			if n == '\n' { // line continuation
				continue
			}
			cur.WriteRune(n)
			inWord = true
		case c == '\'':
			for i++; i < len(r) && r[i] != '\''; i++ {
				cur.WriteRune(r[i])
			}
			if i >= len(r) {
				return nil, errors.New("unterminated single quote in command")
			}
			inWord = true
		case c == '"':
			i++
			for ; i < len(r) && r[i] != '"'; i++ {
				if r[i] == '\\' {
					if n, ok := escaped(i); ok && strings.ContainsRune("\"\\$`\n", n) {
						i++
						if n != '\n' {
							cur.WriteRune(n)
						}
						continue
					}
				}
				cur.WriteRune(r[i])
			}
			if i >= len(r) {
				return nil, errors.New("unterminated double quote in command")
			}
			inWord = true
		default:
			cur.WriteRune(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
