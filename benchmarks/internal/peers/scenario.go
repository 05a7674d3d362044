package peers

import "fmt"

// Scenario is one row of the comparison.
type Scenario struct {
	// Name selects the row on the command line (-scenarios).
	Name    string
	Version string
	HTTP    bool
	// Sessions each carry InFlight calls at once; an idle row opens
	// Sessions and makes no call.
	Sessions, InFlight int
	Idle               bool
	// FirstCall rows time New, one session and its first call in a fresh
	// process: the fixed cost a program pays before it can call.
	FirstCall bool
}

// Label is the row's caption in the table.
func (s Scenario) Label() string {
	tr := "stdio"
	if s.HTTP {
		tr = "HTTP"
	}
	era := ""
	if s.Version == Modern {
		era = Modern + " "
	}
	switch {
	case s.FirstCall:
		return fmt.Sprintf("%stime to first call (New, connect, 1 call; fresh process), %s", era, tr)
	case s.Idle && s.HTTP:
		return fmt.Sprintf("%s%d idle %s sessions: heap · goroutines per session · time to open all", era, s.Sessions, tr)
	case s.Idle:
		return fmt.Sprintf("%s%d idle %s sessions: heap · goroutines per session", era, s.Sessions, tr)
	case s.Sessions == 1:
		return fmt.Sprintf("%s%s, 1 session, %d in flight", era, tr, s.InFlight)
	default:
		return fmt.Sprintf("%s%s, %d sessions × %d in flight", era, tr, s.Sessions, s.InFlight)
	}
}

// Scenarios are the rows, in table order: issue 17's handshake-era rows,
// then the 2026-07-28 rows of issue 14.
var Scenarios = []Scenario{
	{Name: "stdio-1x1", Version: Legacy, Sessions: 1, InFlight: 1},
	{Name: "stdio-1x64", Version: Legacy, Sessions: 1, InFlight: 64},
	{Name: "http-1x64", Version: Legacy, HTTP: true, Sessions: 1, InFlight: 64},
	{Name: "http-100x4", Version: Legacy, HTTP: true, Sessions: 100, InFlight: 4},
	{Name: "idle-http-1000", Version: Legacy, HTTP: true, Sessions: 1000, Idle: true},
	{Name: "idle-stdio-200", Version: Legacy, Sessions: 200, Idle: true},
	{Name: "first-call-stdio", Version: Legacy, Sessions: 1, FirstCall: true},
	{Name: "first-call-http", Version: Legacy, HTTP: true, Sessions: 1, FirstCall: true},
	{Name: "modern-stdio-1x1", Version: Modern, Sessions: 1, InFlight: 1},
	{Name: "modern-stdio-1x64", Version: Modern, Sessions: 1, InFlight: 64},
	{Name: "modern-http-1x64", Version: Modern, HTTP: true, Sessions: 1, InFlight: 64},
}

// ScenarioNamed returns the scenario called name.
func ScenarioNamed(name string) (Scenario, bool) {
	for _, s := range Scenarios {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}

// LegacyOf returns the handshake-era row a 2026-07-28 row is compared with
// (same transport, sessions and calls in flight).
func LegacyOf(s Scenario) (Scenario, bool) {
	for _, l := range Scenarios {
		if l.Version == Legacy && l.HTTP == s.HTTP && l.Sessions == s.Sessions && l.InFlight == s.InFlight && l.Idle == s.Idle && l.FirstCall == s.FirstCall {
			return l, true
		}
	}
	return Scenario{}, false
}
