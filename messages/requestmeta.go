package messages

import "bytes"

// The _meta keys the 2026-07-28 era reserves. A modern request carries
// the protocol version and the client capabilities (required) and the
// client info (recommended) in params._meta; a result may carry the
// server's info.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// RequestMeta is the per-request context of the 2026-07-28 era, encoded
// once per session: every request of the session carries the same
// members, so the hot path copies bytes instead of encoding anything.
type RequestMeta struct {
	// ProtocolVersion as sent (also the HTTP MCP-Protocol-Version header).
	ProtocolVersion string
	// members is `"key":value,...` without the braces.
	members []byte
	fields  []MetaField
}

// NewRequestMeta encodes the per-request fields of version for a client.
func NewRequestMeta(version string, info Implementation, caps ClientCapabilities) (*RequestMeta, error) {
	rawInfo, err := MarshalOnce(&info)
	if err != nil {
		return nil, err
	}
	rawCaps, err := MarshalOnce(&caps)
	if err != nil {
		return nil, err
	}
	return newRequestMeta(version, []MetaField{
		{Key: MetaProtocolVersion, Value: AppendJSONString(nil, version)},
		{Key: MetaClientInfo, Value: rawInfo},
		{Key: MetaClientCapabilities, Value: rawCaps},
	}), nil
}

func newRequestMeta(version string, fields []MetaField) *RequestMeta {
	m := &RequestMeta{ProtocolVersion: version, fields: fields}
	for i, f := range m.fields {
		if i > 0 {
			m.members = append(m.members, ',')
		}
		m.members = AppendJSONString(m.members, f.Key)
		m.members = append(m.members, ':')
		m.members = append(m.members, f.Value...)
	}
	return m
}

// WithLogLevel returns a copy of m whose requests also carry level under
// MetaLogLevel: the 2026-07-28 era has no logging/setLevel, a client opts
// in to a request's notifications/message by naming the level in that
// request's _meta. m itself is left as it is (sessions of one server
// share it); an empty level returns m.
func (m *RequestMeta) WithLogLevel(level LoggingLevel) *RequestMeta {
	if level == "" {
		return m
	}
	fields := make([]MetaField, 0, len(m.fields)+1)
	for _, f := range m.fields {
		if f.Key != MetaLogLevel {
			fields = append(fields, f)
		}
	}
	fields = append(fields, MetaField{Key: MetaLogLevel, Value: AppendJSONString(nil, string(level))})
	return newRequestMeta(m.ProtocolVersion, fields)
}

// Fields returns the members one by one, for WithMeta; read only.
func (m *RequestMeta) Fields() []MetaField { return m.fields }

// Members returns the encoded members (`"key":value,...`); read only.
func (m *RequestMeta) Members() []byte { return m.members }

// metaMember finds a _meta member: its first byte, rare in JSON, lets the
// scan skip ahead where a leading quote would stop it at every member
// name. Something else ending in _meta" only costs the merge path.
var metaMember = []byte(`_meta"`)

// metaOpen is how params start when their first member is _meta, as
// WithMeta writes them (a progress token, trace context).
var metaOpen = []byte(`{"_meta":{`)

// AppendRequestWithMeta appends a request frame like AppendRequest, with
// the members of meta added to params._meta. In the common cases (no
// params, params without _meta, params whose first member is _meta as
// WithMeta writes it) the members are spliced in while the frame is
// written: nothing is decoded and nothing allocated beyond buf's growth.
// Params with a _meta elsewhere are merged by WithMeta (decoded once).
// Members of a _meta the caller wrote that carry the same keys win, as the
// later duplicates.
func AppendRequestWithMeta(buf []byte, id ID, method string, params RawMessage, meta *RequestMeta) []byte {
	if meta == nil {
		return AppendRequest(buf, id, method, params)
	}
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = id.AppendJSON(buf)
	buf = append(buf, `,"method":`...)
	buf = AppendJSONString(buf, method)
	buf = append(buf, `,"params":`...)
	p := bytes.TrimSpace(params)
	switch {
	case len(p) == 0 || string(p) == "null" || isEmptyObject(p):
		buf = append(buf, metaOpen...)
		buf = append(buf, meta.members...)
		buf = append(buf, "}}"...)
	case bytes.HasPrefix(p, metaOpen):
		buf = append(buf, metaOpen...)
		buf = append(buf, meta.members...)
		if rest := p[len(metaOpen):]; len(rest) > 0 && rest[0] != '}' {
			buf = append(buf, ',')
		}
		buf = append(buf, p[len(metaOpen):]...)
	case p[0] == '{' && !bytes.Contains(p, metaMember):
		buf = append(buf, metaOpen...)
		buf = append(buf, meta.members...)
		buf = append(buf, "},"...)
		buf = append(buf, p[1:]...)
	case p[0] == '{':
		buf = append(buf, WithMeta(p, meta.fields...)...)
	default:
		// Not an object: nowhere to put the fields (MCP params are
		// objects; the server will say what it thinks of these).
		buf = append(buf, p...)
	}
	return append(buf, '}')
}
