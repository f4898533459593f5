package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// decodeStrict decodes exactly one JSON value from data into v, rejecting
// unknown fields and trailing data, with errors that say where (line and
// column) and what.
func decodeStrict(name string, data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: empty input: want a JSON object", name)
		}
		return describeJSONError(name, data, err)
	}
	if dec.More() {
		off := dec.InputOffset()
		return fmt.Errorf("%s: %s: unexpected data after the JSON object", name, position(data, off))
	}
	return nil
}

func describeJSONError(name string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("%s: %s: invalid JSON: %v", name, position(data, syn.Offset), syn)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "(top level)"
		}
		return fmt.Errorf("%s: %s: field %q: want %s, got JSON %s", name, position(data, typ.Offset), field, typ.Type, typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: %s: invalid JSON: unexpected end of input", name, position(data, int64(len(data))))
	}
	return fmt.Errorf("%s: %w", name, err)
}

// position turns a byte offset into "line L, column C".
func position(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return "line " + strconv.Itoa(line) + ", column " + strconv.FormatInt(col, 10)
}
