package messages

// ToolResultIsError reports whether a tools/call result says isError:
// true, without decoding the result. The gateway and telemetry ask it of
// every tools/call answer they relay or record. An unreadable result is
// not an error result here; whoever decodes it finds out.
func ToolResultIsError(result RawMessage) bool {
	b := trimSpace(result)
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	var s [1]span
	if end, ok := scanMembers(b, 0, isErrorName[:], s[:]); ok && end == len(b) {
		return string(s[0].raw(b)) == "true"
	}
	// Something the scanner does not take (an escaped member name, invalid
	// UTF-8, deep nesting): decode it as the caller's decoder would.
	var r struct {
		IsError bool `json:"isError"`
	}
	return Unmarshal(b, &r) == nil && r.IsError
}

var isErrorName = [...]string{"isError"}
