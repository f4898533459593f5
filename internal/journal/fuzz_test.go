package journal

import (
	"encoding/json"
	"testing"
)

// FuzzString: any bytes survive a String's JSON round trip, and valid
// UTF-8 is written as a plain JSON string.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "plain", "€", "\xe2\x82", "\xff", "a\x00b", "\u2028", `{"base64":"x"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := json.Marshal(String(s))
		if err != nil {
			t.Fatal(err)
		}
		var got String
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("unmarshal %s: %v", b, err)
		}
		if string(got) != s {
			t.Fatalf("round trip %q -> %s -> %q", s, b, got)
		}
	})
}

// FuzzDecode: Decode never panics, and what it accepts encodes to an entry
// that decodes to the same encoding (the format has one reading).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"v":1,"kind":"model","key":"k","model":{"chunks":[{"t":"a"},{"t":{"base64":"/w=="}}],"response":{"choices":[{"content":"a","info":{"values":{"n":1},"kinds":{"n":"int"}}},null]}}}`,
		`{"v":1,"kind":"search","key":"k","search":{"query":"q","limit":5,"results":[{"score":"NaN"}]}}`,
		`{"v":1,"kind":"page","key":"k","error":{"message":"x","deadline":true}}`,
		`{"v":1,"kind":"document","key":"k","document":{"doc_id":"d","text_page":{"kind":"page","key":"p"}}}`,
		`{"v":1,"kind":"header","time":"2026-01-01T00:00:00Z","header":{"program":"p","manifest":{"a":1}}}`,
		`{"v":2}`, `{}`, `[]`, `{"v":1,"kind":"model"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := Decode(b)
		if err != nil {
			return
		}
		enc, err := Encode(e)
		if err != nil {
			t.Fatalf("a decoded entry does not encode: %v (%s)", err, b)
		}
		e2, err := Decode(enc)
		if err != nil {
			t.Fatalf("an encoded entry does not decode: %v (%s)", err, enc)
		}
		enc2, err := Encode(e2)
		if err != nil || string(enc2) != string(enc) {
			t.Fatalf("encodings differ:\n%s\n%s", enc, enc2)
		}
	})
}
