package messages

// The Append functions build outgoing frames without reflection: the
// envelope is a few fixed bytes around the id, the method and the already
// encoded params. Callers pass a buffer to reuse. Params, results and error
// data are appended verbatim, so they must be compact JSON (as Marshal's
// output is): a raw newline would split the frame on newline-delimited
// transports.

// AppendRequest appends a request frame.
func AppendRequest(buf []byte, id ID, method string, params RawMessage) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = id.AppendJSON(buf)
	buf = append(buf, `,"method":`...)
	buf = AppendJSONString(buf, method)
	if len(params) > 0 {
		buf = append(buf, `,"params":`...)
		buf = append(buf, params...)
	}
	return append(buf, '}')
}

// AppendNotification appends a notification frame.
func AppendNotification(buf []byte, method string, params RawMessage) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","method":`...)
	buf = AppendJSONString(buf, method)
	if len(params) > 0 {
		buf = append(buf, `,"params":`...)
		buf = append(buf, params...)
	}
	return append(buf, '}')
}

// AppendResult appends a success response. A nil result is sent as {}.
func AppendResult(buf []byte, id ID, result RawMessage) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = id.AppendJSON(buf)
	buf = append(buf, `,"result":`...)
	if len(result) == 0 {
		buf = append(buf, "{}"...)
	} else {
		buf = append(buf, result...)
	}
	return append(buf, '}')
}

// AppendError appends an error response: e.Raw verbatim when the error
// was received from a peer, else the error encoded.
func AppendError(buf []byte, id ID, e *WireError) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = id.AppendJSON(buf)
	if len(e.Raw) > 0 {
		buf = append(buf, `,"error":`...)
		buf = append(buf, e.Raw...)
		return append(buf, '}')
	}
	buf = append(buf, `,"error":{"code":`...)
	buf = appendInt(buf, e.Code)
	buf = append(buf, `,"message":`...)
	buf = AppendJSONString(buf, e.Message)
	if len(e.Data) > 0 {
		buf = append(buf, `,"data":`...)
		buf = append(buf, e.Data...)
	}
	return append(buf, "}}"...)
}

func appendInt(buf []byte, n int64) []byte { return NumberID(n).AppendJSON(buf) }
