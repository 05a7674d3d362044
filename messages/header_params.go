package messages

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// XMCPHeader is the JSON Schema annotation by which a 2026-07-28 tool asks
// that an argument be mirrored into an HTTP header (SEP-2243): a property
// of the inputSchema carrying "x-mcp-header": "Region" has its value sent
// as Mcp-Param-Region on the Streamable HTTP transport.
const XMCPHeader = "x-mcp-header"

// HeaderParam is one argument a tool mirrors into a header.
type HeaderParam struct {
	Property string // the inputSchema property (the argument's name)
	Header   string // Mcp-Param-<Header>
}

// InvalidHeaderAnnotationError is a tool whose x-mcp-header annotations
// break SEP-2243's rules: such a tool must not be called (clients exclude
// it), as no server could rely on its headers.
type InvalidHeaderAnnotationError struct {
	Property string
	Header   string
	Reason   string
}

func (e *InvalidHeaderAnnotationError) Error() string {
	return fmt.Sprintf("mcpengine: x-mcp-header %q of property %q: %s", e.Header, e.Property, e.Reason)
}

// ToolHeaderParams returns the arguments a tool's inputSchema mirrors into
// headers, or an *InvalidHeaderAnnotationError when an annotation is not
// a non-empty header token (RFC 9110 tchar: no spaces, colons, controls
// or non-ASCII), sits on a property that is not a string, integer or
// boolean (numbers, objects, arrays and null cannot be carried exactly),
// or repeats another's name, case aside. A schema without annotations
// returns none; one that is not a JSON object is no business of headers.
func ToolHeaderParams(inputSchema RawMessage) ([]HeaderParam, error) {
	if !strings.Contains(string(inputSchema), XMCPHeader) {
		return nil, nil // the common case, without decoding
	}
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if Unmarshal(inputSchema, &s) != nil {
		return nil, nil
	}
	var params []HeaderParam
	seen := map[string]string{}
	for prop, schema := range s.Properties {
		raw, ok := schema[XMCPHeader]
		if !ok {
			continue
		}
		name, isString := raw.(string)
		bad := func(reason string) error {
			return &InvalidHeaderAnnotationError{Property: prop, Header: name, Reason: reason}
		}
		switch {
		case !isString || name == "":
			return nil, bad("must be a non-empty string")
		case !isHeaderToken(name):
			return nil, bad("must be a header token (visible ASCII, no spaces, colons or separators)")
		}
		switch t, _ := schema["type"].(string); t {
		case "string", "integer", "boolean":
		default:
			return nil, bad(fmt.Sprintf("must annotate a string, integer or boolean property, not %v", schema["type"]))
		}
		key := strings.ToLower(name)
		if other, dup := seen[key]; dup {
			return nil, bad("repeats the header of property " + strconv.Quote(other) + " (names are case-insensitive)")
		}
		seen[key] = prop
		params = append(params, HeaderParam{Property: prop, Header: name})
	}
	return params, nil
}

// isHeaderToken reports whether s is an RFC 9110 token.
func isHeaderToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return s != ""
}

// HeaderParamValue is an argument's value as its Mcp-Param header carries
// it: a string as it is, a boolean as true or false, an integer in
// decimal; ok is false for null, an absent argument or any other value
// (the header is then left out). The result still needs
// EncodeHeaderValue.
func HeaderParamValue(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case uint:
		return strconv.FormatUint(uint64(x), 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32), true
	case interface{ String() string }: // json.Number
		return x.String(), true
	}
	return "", false
}

// EncodeHeaderValue returns s as the 2026-07-28 transport carries a
// mirrored argument in a header: as it is when it is plain (visible ASCII
// and inner spaces), else Base64 of its UTF-8 between the =?base64? and ?=
// markers (also when the plain value looks like such an encoding). Tabs
// and other controls are never sent plain: intermediaries may fold or trim
// them.
func EncodeHeaderValue(s string) string {
	const open, close = "=?base64?", "?="
	if plainHeaderValue(s) && !(strings.HasPrefix(s, open) && strings.HasSuffix(s, close)) {
		return s
	}
	return open + base64.StdEncoding.EncodeToString([]byte(s)) + close
}

func plainHeaderValue(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x21 || c > 0x7E) && c != ' ' {
			return false
		}
	}
	return true
}
