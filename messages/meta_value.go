package messages

import (
	"bytes"
	"errors"
)

// Meta is the _meta object of a server's result, kept as the JSON text
// received and decoded only when asked. A 2026-07-28 server may repeat its
// identity in every result's _meta; decoding that into a map on every call
// cost a map per nested object (5 of the 8 allocations of a go-sdk-shaped
// CallToolResult) that almost no caller reads.
//
// The zero Meta is an absent _meta (omitted when encoded). A Meta built
// by hand must hold a JSON object: it is sent as it is.
type Meta RawMessage

// MetaOf encodes fields as a Meta, for results the engine or an embedder
// builds (a server, the gateway). A nil or empty map gives the zero Meta.
func MetaOf(fields map[string]any) (Meta, error) {
	if len(fields) == 0 {
		return nil, nil
	}
	b, err := Marshal(fields)
	return Meta(b), err
}

// IsZero reports whether the result carried no _meta (or "_meta": null).
func (m Meta) IsZero() bool { return len(m) == 0 }

// Map decodes the object; nil when the result carried none.
func (m Meta) Map() (map[string]any, error) {
	if m.IsZero() {
		return nil, nil
	}
	var out map[string]any
	err := Unmarshal(m, &out)
	return out, err
}

// Lookup returns the raw value of one member, and whether it is there.
// An unreadable object has no members.
func (m Meta) Lookup(key string) (RawMessage, bool) {
	if m.IsZero() {
		return nil, false
	}
	var members map[string]RawMessage
	if Unmarshal(m, &members) != nil {
		return nil, false
	}
	v, ok := members[key]
	return v, ok
}

// Decode decodes the object into v (a struct naming the members it wants,
// or a map). A zero Meta leaves v as it is.
func (m Meta) Decode(v any) error {
	if m.IsZero() {
		return nil
	}
	return Unmarshal(m, v)
}

// MarshalJSON sends the object as it was received or built ("null" for the
// zero Meta, which omitempty leaves out anyway).
func (m Meta) MarshalJSON() ([]byte, error) {
	if m.IsZero() {
		return []byte("null"), nil
	}
	return m, nil
}

var errMetaNotObject = errors.New("messages: _meta is not a JSON object")

// UnmarshalJSON keeps a copy of the object's text (the decoder may reuse
// the buffer it passes). Anything but an object or null is refused, as the
// map the field used to be would have refused it.
func (m *Meta) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*m = nil
		return nil
	}
	if len(b) == 0 || b[0] != '{' {
		return errMetaNotObject
	}
	*m = append(Meta(nil), b...)
	return nil
}
