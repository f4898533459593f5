package httpapi

import "strings"

// jsonWord names the JSON value a decoder found (json.UnmarshalTypeError's
// Value: "array", "bool", "number 1.5"…).
func jsonWord(v string) string {
	switch {
	case v == "bool":
		return "a boolean"
	case strings.HasPrefix(v, "number"):
		return "a number"
	case v == "array" || v == "object":
		return "an " + v
	case v == "":
		return "that"
	}
	return "a " + v
}
