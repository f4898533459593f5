package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// decodeStrict decodes exactly one JSON value from data into v, rejecting
// unknown fields and trailing data, with errors that say where (line and
// column) and what.
func decodeStrict(name string, data []byte, v any) error {
	start := bytes.TrimLeft(data, " \t\r\n")
	if len(start) == 0 {
		return fmt.Errorf("%s: empty input: want a JSON object", name)
	}
	if start[0] != '{' {
		off := int64(len(data) - len(start))
		return fmt.Errorf("%s: %s: want a JSON object, got %s", name, position(data, off), jsonKindOf(start[0]))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return describeJSONError(name, data, err)
	}
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		off := int64(len(data) - len(rest))
		return fmt.Errorf("%s: %s: unexpected data after the JSON object", name, position(data, off))
	}
	return nil
}

func describeJSONError(name string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		// Offset counts the offending byte: point at it.
		return fmt.Errorf("%s: %s: invalid JSON: %v", name, position(data, syn.Offset-1), syn)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "(top level)"
		}
		return fmt.Errorf("%s: %s: field %q: want %s, got JSON %s", name, position(data, typ.Offset), field, jsonKind(typ.Type), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: %s: invalid JSON: unexpected end of input", name, position(data, int64(len(data))))
	}
	// encoding/json reports unknown fields as a plain error without a position.
	if key, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if k, qerr := strconv.Unquote(key); qerr == nil {
			if off := keyOffset(data, k); off >= 0 {
				return fmt.Errorf("%s: %s: unknown field %q", name, position(data, off), k)
			}
			return fmt.Errorf("%s: unknown field %q", name, k)
		}
	}
	return fmt.Errorf("%s: %w", name, err)
}

// keyOffset returns the offset of the first object key named key in data,
// or -1.
func keyOffset(data []byte, key string) int64 {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct{ object, wantKey bool }
	var stack []frame
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return -1
		}
		top := len(stack) - 1
		isKey := top >= 0 && stack[top].object && stack[top].wantKey
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if top >= 0 && stack[top].object {
					stack[top].wantKey = true
				}
				stack = append(stack, frame{object: t == '{', wantKey: t == '{'})
			default:
				stack = stack[:top]
			}
			continue
		case string:
			if isKey {
				stack[top].wantKey = false
				if t == key {
					// before is the end of the previous token; skip the
					// separator and whitespace to the opening quote.
					if i := bytes.IndexByte(data[before:], '"'); i >= 0 {
						return before + int64(i)
					}
					return before
				}
				continue
			}
		}
		if top >= 0 && stack[top].object {
			stack[top].wantKey = true
		}
	}
}

// jsonKind names what JSON value a Go type takes.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return t.String()
}

func jsonKindOf(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// position turns a byte offset into "line L, column C".
func position(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return "line " + strconv.Itoa(line) + ", column " + strconv.FormatInt(col, 10)
}
