package openaiwire

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestContentText(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		err      error
	}{
		{`"hello"`, "hello", nil},
		{`null`, "", nil},
		{``, "", nil},
		{`[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"b"}]`, "a\nb", nil},
		{`42`, "", ErrContent},
		{`{"text":"x"}`, "", ErrContent},
	} {
		got, err := ContentText(json.RawMessage(tc.in))
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("ContentText(%s) = %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}
