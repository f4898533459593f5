package output

import (
	"errors"
	"testing"
)

func TestParseAction(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Action
		err  error
	}{
		{"empty is flag", "", Flag, nil},
		{"keep", "keep", Keep, nil},
		{"flag", "flag", Flag, nil},
		{"remove", "remove", Remove, nil},
		{"unknown", "burn", "", ErrAction},
		{"upper case", "Keep", "", ErrAction},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAction(tt.in)
			if got != tt.want || !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Errorf("ParseAction(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
			}
		})
	}
}
