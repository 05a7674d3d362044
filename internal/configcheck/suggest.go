package configcheck

import "strings"

// Suggest returns the name of known that the user most likely meant by
// name, or "" when none is close: the same name in other case, or one at
// a small edit distance (a letter missing, extra, wrong or two swapped),
// at most one edit per three letters so that short names do not match
// everything.
func Suggest(name string, known []string) string {
	lower := strings.ToLower(name)
	best, bestDist := "", -1
	for _, k := range known {
		d := Distance(lower, strings.ToLower(k))
		if bestDist < 0 || d < bestDist {
			best, bestDist = k, d
		}
	}
	if bestDist < 0 || bestDist > max(1, len(name)/3) {
		return ""
	}
	return best
}

// Distance is the optimal string alignment distance of a and b: the
// Levenshtein distance where swapping two adjacent letters is one edit
// ("dney" for "deny").
func Distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
