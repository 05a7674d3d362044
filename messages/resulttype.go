package messages

import (
	"bytes"
	"slices"
)

// Result types of the 2026-07-28 era. A result without resultType (every
// result of the legacy era) is complete.
const (
	ResultTypeComplete      = "complete"
	ResultTypeInputRequired = "input_required"
)

// InputRequiredResult (2026-07-28) answers a request that needs the
// client's input first: the client fulfils each input request (sampling,
// elicitation, roots) and sends the original request again with
// inputResponses and the opaque requestState.
type InputRequiredResult struct {
	ResultType    string                  `json:"resultType"`
	InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
	RequestState  string                  `json:"requestState,omitempty"`
	Meta          *ResultMeta             `json:"_meta,omitempty"`
}

func (*InputRequiredResult) fromServer() {}

// InputRequest is one server-initiated request embedded in an
// InputRequiredResult: sampling/createMessage, elicitation/create or
// roots/list, with its params kept raw for the matching handler.
type InputRequest struct {
	Method string     `json:"method"`
	Params RawMessage `json:"params,omitempty"`
}

// InputResponses maps the keys of InputRequests to the client's result
// for each; the retried request carries them beside requestState.
type InputResponses map[string]RawMessage

// InputRetryParams are the members a client adds to the params of a
// request it sends again after an InputRequiredResult.
type InputRetryParams struct {
	InputResponses InputResponses `json:"inputResponses,omitempty"`
	RequestState   string         `json:"requestState,omitempty"`
}

func (*InputRetryParams) fromClient() {}

// inputRequiredMarker is the tail of "input_required": a scan for a
// needle whose first byte is rare in JSON ('_', not '"', which every
// member name starts with) skips ahead instead of stopping at each quote,
// 4-8 times faster on a small result.
var inputRequiredMarker = []byte(`_required"`)

// IsInputRequired reports whether a result is an InputRequiredResult. It
// costs a byte scan on the common answer (no `_required"` anywhere) and a
// decode only when the marker appears, since a tool's output, or another
// member's name, may contain it.
func IsInputRequired(result RawMessage) bool {
	if !bytes.Contains(result, inputRequiredMarker) {
		return false
	}
	var r struct {
		ResultType string `json:"resultType"`
	}
	return Unmarshal(result, &r) == nil && r.ResultType == ResultTypeInputRequired
}

// AppendInputRetry appends the params of a request sent again after an
// InputRequiredResult: params (a JSON object, or empty) with
// inputResponses (omitted when empty; keys in sorted order) and
// requestState (omitted when "") added as its last members. The caller's
// params are copied, never modified, so each round starts from them.
func AppendInputRetry(dst []byte, params RawMessage, responses InputResponses, state string) []byte {
	p := bytes.TrimSpace(params)
	empty := len(p) == 0 || string(p) == "null" || isEmptyObject(p)
	if empty {
		dst = append(dst, '{')
	} else {
		p = bytes.TrimRight(p[:len(p)-1], " \t\r\n") // without its closing brace
		dst = append(dst, p...)
	}
	sep := func() {
		if !empty {
			dst = append(dst, ',')
		}
		empty = false
	}
	if len(responses) > 0 {
		sep()
		keys := make([]string, 0, len(responses))
		for k := range responses {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, `"inputResponses":{`...)
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSONString(dst, k)
			dst = append(dst, ':')
			dst = append(dst, responses[k]...)
		}
		dst = append(dst, '}')
	}
	if state != "" {
		sep()
		dst = append(dst, `"requestState":`...)
		dst = AppendJSONString(dst, state)
	}
	return append(dst, '}')
}
