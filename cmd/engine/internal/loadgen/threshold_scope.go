package loadgen

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var scopeRE = regexp.MustCompile(`^\s*(step|flow|request):("(?:[^"\\]|\\.)*"|\S+)\s+(.*)$`)

// cutScope splits a threshold's scope prefix from its expression.
func cutScope(s string) (scope, target, rest string, err error) {
	m := scopeRE.FindStringSubmatch(s)
	if m == nil {
		if strings.HasPrefix(strings.TrimSpace(s), "step:") || strings.HasPrefix(strings.TrimSpace(s), "flow:") ||
			strings.HasPrefix(strings.TrimSpace(s), "request:") {
			return "", "", "", fmt.Errorf("threshold %q: want SCOPE:NAME METRIC OP VALUE, e.g. 'step:search p99<200ms'", s)
		}
		return "", "", s, nil
	}
	target = m[2]
	if strings.HasPrefix(target, `"`) {
		if target, err = strconv.Unquote(target); err != nil {
			return "", "", "", fmt.Errorf("threshold %q: %s: %v", s, m[2], err)
		}
	}
	return m[1], target, m[3], nil
}

// scopeResult is the part of r a scoped threshold judges, as a Result
// of its own so every metric reads it as it reads a run; nil and why
// when r has no such part (a check that cannot be judged fails).
func scopeResult(r *Result, scope, name string) (*Result, string) {
	switch scope {
	case "request":
		for _, m := range r.Methods {
			if m.Name == name {
				return methodPart(m, r), ""
			}
		}
		return nil, fmt.Sprintf("no request %q in this run", name)
	case "flow":
		for _, f := range r.Flows {
			if f.Name == name {
				p := &Result{Model: r.Model, Calls: f.Iterations, OK: f.OK, Failed: f.Failed, ErrorRate: f.ErrorRate,
					Errors: f.Errors, Latency: f.Latency, CallsPerSecond: f.IterationsPerSecond}
				return p, ""
			}
		}
		return nil, fmt.Sprintf("no flow %q in this run", name)
	}
	var found []MethodResult
	for _, f := range r.Flows {
		for _, s := range f.Steps {
			if s.Name == name || f.Name+"/"+s.Name == name {
				found = append(found, s)
			}
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Sprintf("no step %q in this run", name)
	case 1:
		return methodPart(found[0], r), ""
	}
	return nil, fmt.Sprintf("several flows have a step %q: write step:FLOW/%s", name, name)
}

func methodPart(m MethodResult, r *Result) *Result {
	return &Result{Model: r.Model, Calls: m.Calls, OK: m.OK, Failed: m.Failed, ErrorRate: m.ErrorRate,
		Errors: m.Errors, Latency: m.Latency, Service: m.Service, CallsPerSecond: m.CallsPerSecond}
}

// partMetric reports whether a metric is measured for a step, a flow or
// a request too: latency, service time, errors and calls.
func partMetric(m *Metric) bool {
	for _, p := range []string{"handshake_", "send_lag_", "connect_", "server_", "late", "unsent"} {
		if strings.HasPrefix(m.Name, p) {
			return false
		}
	}
	return true
}
