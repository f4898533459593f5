package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/jsonkind"
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
		return fmt.Errorf("%s: %s: want a JSON object, got %s", name, position(data, off), jsonKindOf(start))
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
		return fmt.Errorf("%s: %s: field %q: want %s, got JSON %s", name, position(data, typ.Offset), field, jsonkind.Of(typ.Type), typ.Value)
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

// jsonKindOf names the JSON value that b starts with, or says that it is
// not JSON, quoting its start.
func jsonKindOf(b []byte) string {
	word := func(w string) bool { return bytes.HasPrefix(b, []byte(w)) }
	switch c := b[0]; {
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case word("true") || word("false"):
		return "a boolean"
	case word("null"):
		return "null"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	}
	end := min(len(b), 20)
	for end > 0 && !utf8.Valid(b[:end]) {
		end--
	}
	if i := bytes.IndexAny(b[:end], "\r\n"); i >= 0 {
		end = i
	}
	return fmt.Sprintf("text that is not JSON (%q)", b[:end])
}

// maxInput is the most cite and collapse read from stdin (and, with
// cite --stream, the longest line): the request is held in memory whole,
// several times over while it is decoded and answered (a link-mode cite of
// 16 MiB peaks at about 200 MB of RSS). Model output is far smaller.
const maxInput = 16 << 20

// readInput reads stdin whole, refusing more than maxInput bytes and
// anything that is not UTF-8.
func readInput(stdin io.Reader, who string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(stdin, maxInput+1))
	if err != nil {
		return nil, fmt.Errorf("reading stdin: %w", err)
	}
	if len(data) > maxInput {
		return nil, inputError(fmt.Errorf("stdin: more than %d MiB, the input limit of %s", maxInput>>20, who))
	}
	if err := checkUTF8("stdin", data); err != nil {
		return nil, inputError(err)
	}
	return data, nil
}

// checkUTF8 reports where data is not UTF-8: JSON decoding would replace
// such bytes with U+FFFD without a word.
func checkUTF8(name string, data []byte) error {
	if utf8.Valid(data) {
		return nil
	}
	for off := 0; off < len(data); {
		r, w := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && w == 1 {
			where := name + ": " + position(data, int64(off))
			if !bytes.Contains(data, []byte("\n")) && strings.Contains(name, " line ") {
				where = name + ", column " + strconv.Itoa(1+off) // name says the line
			}
			return fmt.Errorf("%s: invalid UTF-8 (byte 0x%02X): the input must be UTF-8 text", where, data[off])
		}
		off += w
	}
	return nil
}

// surrogateJoiner decodes the chunk strings of cite --stream, joining a
// UTF-16 surrogate pair whose halves arrive in two lines ("\ud83d", then
// "\ude00"), as JavaScript clients split strings. A half that finds no
// partner becomes U+FFFD, as encoding/json makes it.
type surrogateJoiner struct{ high rune } // 0: none pending

func (j *surrogateJoiner) decode(name string, raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "", fmt.Errorf("%s: want {\"chunk\": \"…\"}", name)
	case raw[0] != '"':
		return "", fmt.Errorf("%s: field \"chunk\": want a string, got %s", name, jsonKindOf(raw))
	}
	var lead string
	if j.high != 0 {
		lead = "\uFFFD"
		if lo, ok := escapedSurrogate(raw, 1, 0xDC00); ok {
			lead = string(utf16.DecodeRune(j.high, lo))
			raw = append([]byte{'"'}, raw[7:]...)
		}
		j.high = 0
	}
	if n := len(raw); n >= 8 && oddBackslashes(raw[:n-6]) {
		if hi, ok := escapedSurrogate(raw, n-7, 0xD800); ok {
			j.high = hi
			raw = append(raw[:n-7:n-7], '"')
		}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s: field \"chunk\": %w", name, err)
	}
	return lead + s, nil
}

// flush returns what a pending half becomes at the end of the input.
func (j *surrogateJoiner) flush() string {
	if j.high == 0 {
		return ""
	}
	j.high = 0
	return "\uFFFD"
}

// escapedSurrogate reads a "\uXXXX" escape at raw[i] whose value lies in
// [base, base+0x400).
func escapedSurrogate(raw []byte, i int, base rune) (rune, bool) {
	if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
		return 0, false
	}
	v, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16)
	if err != nil || rune(v) < base || rune(v) >= base+0x400 {
		return 0, false
	}
	return rune(v), true
}

// oddBackslashes reports whether b ends in an odd number of backslashes:
// whether the last one escapes what follows.
func oddBackslashes(b []byte) bool {
	n := 0
	for n < len(b) && b[len(b)-1-n] == '\\' {
		n++
	}
	return n%2 == 1
}

// position turns a byte offset into "line L, column C".
func position(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return "line " + strconv.Itoa(line) + ", column " + strconv.FormatInt(col, 10)
}
