// Package jsonkind names, in the words of a JSON document's author, the
// JSON value a Go type decodes from: what a front end says when a caller
// sent a value of the wrong type, instead of a Go type name.
package jsonkind

import "reflect"

// Of returns "a string", "a boolean", "an integer", "a number", "an
// array" or "an object": the JSON that t decodes from (a pointer's
// element's).
func Of(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another JSON value"
}
