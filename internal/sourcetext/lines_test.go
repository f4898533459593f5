package sourcetext

import (
	"reflect"
	"testing"
)

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", []string{""}},
		{"a", []string{"a"}},
		{"a\nb\r\nc\rd", []string{"a", "b", "c", "d"}},
		{"a\u2028b\u2029c\u0085d\ve\ff", []string{"a", "b", "c", "d", "e", "f"}},
		{"é\u2028\n", []string{"é", "", ""}},
		{"bad \xff\u2028x\xe2\x80", []string{"bad \xff", "x\xe2\x80"}},
	} {
		if got := Lines(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Lines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := TrimLeftSpace("\u00a0\u3000\u200b\ufeff \t[7] x"); got != "[7] x" {
		t.Errorf("TrimLeftSpace = %q", got)
	}
}
