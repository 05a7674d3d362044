package configcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"sort"
	"strings"
)

// UnknownField is an object key that the Go type decoding that object has
// no field for.
type UnknownField struct {
	Path       []string     // the keys leading to the object holding it (map keys included)
	Name       string       // the key
	Offset     int64        // where the key starts in the document
	In         reflect.Type // the struct type of the object holding it
	Suggestion string       // a field of In the user probably meant, or ""
}

// Known lists the JSON names of the fields of struct type t.
func Known(t reflect.Type) []string {
	fields := fieldsOf(t)
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	sort.Strings(names) // the first of equally close suggestions is stable
	return names
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// UnknownFields walks data, a valid JSON document, along the shape of t
// (what encoding/json would decode it into) and returns every object key
// a struct on the way has no field for, in document order. Values whose
// type decodes itself (json.Unmarshaler), interfaces and raw messages are
// not looked into. A value of the wrong JSON kind for its type is skipped:
// the decoder reports that one.
func UnknownFields(data []byte, t reflect.Type) ([]UnknownField, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	w := walker{dec: dec, data: data}
	if err := w.value(t, nil); err != nil {
		return nil, err
	}
	return w.found, nil
}

type walker struct {
	dec   *json.Decoder
	data  []byte
	found []UnknownField
}

func (w *walker) value(t reflect.Type, path []string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(unmarshalerType) {
		return w.skip()
	}
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return nil // a scalar
	}
	switch {
	case delim == '{' && t.Kind() == reflect.Struct:
		return w.object(t, path)
	case delim == '{' && t.Kind() == reflect.Map:
		for w.dec.More() {
			key, err := w.key()
			if err != nil {
				return err
			}
			if err := w.value(t.Elem(), append(path[:len(path):len(path)], key)); err != nil {
				return err
			}
		}
		_, err = w.dec.Token()
		return err
	case delim == '[' && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		for w.dec.More() {
			if err := w.value(t.Elem(), path); err != nil {
				return err
			}
		}
		_, err = w.dec.Token()
		return err
	}
	return w.rest(1)
}

func (w *walker) object(t reflect.Type, path []string) error {
	fields := fieldsOf(t)
	for w.dec.More() {
		key, err := w.key()
		if err != nil {
			return err
		}
		ft, ok := fields[key]
		if !ok {
			// The key token ends at InputOffset; a plain key's start is its
			// length and two quotes before.
			off := max(w.dec.InputOffset()-int64(len(key))-2, 0)
			w.found = append(w.found, UnknownField{Path: path, Name: key, Offset: w.keyStart(off), In: t,
				Suggestion: Suggest(key, Known(t))})
			if err := w.skip(); err != nil {
				return err
			}
			continue
		}
		if err := w.value(ft, append(path[:len(path):len(path)], key)); err != nil {
			return err
		}
	}
	_, err := w.dec.Token()
	return err
}

// keyStart moves off forward past the whitespace and separator a
// decoder's offset may still include, to the key's opening quote.
func (w *walker) keyStart(off int64) int64 {
	for off < int64(len(w.data)) && strings.IndexByte(" \t\r\n,{", w.data[off]) >= 0 {
		off++
	}
	return off
}

func (w *walker) key() (string, error) {
	tok, err := w.dec.Token()
	if err != nil {
		return "", err
	}
	key, ok := tok.(string)
	if !ok {
		return "", errors.New("configcheck: object key expected")
	}
	return key, nil
}

// skip reads one whole value.
func (w *walker) skip() error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
		return w.rest(1)
	}
	return nil
}

// rest reads up to the close of depth open objects or arrays.
func (w *walker) rest(depth int) error {
	for depth > 0 {
		tok, err := w.dec.Token()
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// fieldsOf maps the JSON names of struct type t's fields to their types,
// as encoding/json names them: the tag's name, else the Go name; fields
// of embedded structs without a tag name promoted.
func fieldsOf(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				for n, ft := range fieldsOf(et) {
					if _, ok := out[n]; !ok {
						out[n] = ft
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}
