package messages

import (
	"errors"
	"strconv"
)

type idKind uint8

const (
	idNone idKind = iota
	idNumber
	idString
	idNull // only valid on an error response to a request whose id could not be read
)

// ID is a JSON-RPC request id. It keeps the type it arrived with: the number
// 7 and the string "7" are different ids, and a response carries back the
// exact form of its request's id.
type ID struct {
	str  string
	num  int64
	kind idKind
}

// NumberID returns an integer id.
func NumberID(n int64) ID { return ID{num: n, kind: idNumber} }

// StringID returns a string id.
func StringID(s string) ID { return ID{str: s, kind: idString} }

// IsValid reports whether the id is a number or a string (a request's id).
func (id ID) IsValid() bool { return id.kind == idNumber || id.kind == idString }

// IsNull reports whether the id was an explicit JSON null.
func (id ID) IsNull() bool { return id.kind == idNull }

// IsString reports whether the id is a string id.
func (id ID) IsString() bool { return id.kind == idString }

// Int64 returns the numeric value and whether the id is a number.
func (id ID) Int64() (int64, bool) { return id.num, id.kind == idNumber }

// NumberInString returns the integer a string id spells in decimal ("7"
// gives 7), so that a session can recognise a peer that sent a number id
// back as a string: not its request's id, but a broken answer to it.
func (id ID) NumberInString() (int64, bool) {
	if id.kind != idString {
		return 0, false
	}
	n, err := strconv.ParseInt(id.str, 10, 64)
	return n, err == nil
}

// String renders the id for logs: numbers bare, strings quoted.
func (id ID) String() string {
	switch id.kind {
	case idNumber:
		return strconv.FormatInt(id.num, 10)
	case idString:
		return strconv.Quote(id.str)
	case idNull:
		return "null"
	}
	return "<none>"
}

// AppendJSON appends the id's JSON form to buf.
func (id ID) AppendJSON(buf []byte) []byte {
	switch id.kind {
	case idNumber:
		return strconv.AppendInt(buf, id.num, 10)
	case idString:
		return AppendJSONString(buf, id.str)
	}
	return append(buf, "null"...)
}

// MarshalJSON implements json.Marshaler.
func (id ID) MarshalJSON() ([]byte, error) { return id.AppendJSON(nil), nil }

// UnmarshalJSON implements json.Unmarshaler. It accepts an integer, a
// string or null; fractions, exponents and other types are rejected.
func (id *ID) UnmarshalJSON(data []byte) error {
	parsed, err := parseID(data)
	if err != nil {
		return err
	}
	*id = parsed
	return nil
}

var errBadID = errors.New("id must be an integer or a string")

func parseID(raw []byte) (ID, error) {
	raw = trimSpace(raw)
	if len(raw) == 0 {
		return ID{}, nil
	}
	switch raw[0] {
	case 'n':
		if string(raw) == "null" {
			return ID{kind: idNull}, nil
		}
	case '"':
		var s string
		if err := Unmarshal(raw, &s); err != nil {
			return ID{}, err
		}
		return StringID(s), nil
	default:
		if n, ok := parseJSONInt(raw); ok {
			return NumberID(n), nil
		}
	}
	return ID{}, errBadID
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
