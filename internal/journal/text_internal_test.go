package journal

import (
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestEncodeTextAsMarshal: a text entry encoded in one pass is byte for
// byte what the generic encoder writes, for every ASCII byte, the line
// separators JavaScript breaks at, multibyte text and text that is not
// UTF-8 (written as base64).
func TestEncodeTextAsMarshal(t *testing.T) {
	var ascii strings.Builder
	for c := range 128 {
		ascii.WriteByte(byte(c))
	}
	for _, text := range []string{"", "plain", ascii.String(), "a\u2028b\u2029c", "€ 日本語 🙂", `"quoted" \ back`, "bad \xff utf-8", strings.Repeat("x\n", 40000)} {
		e := Entry{Version: 2, Kind: KindText, Key: TextKey(text), Time: time.Date(2026, 11, 3, 10, 0, 0, 123, time.UTC), Text: &TextRecord{Text: String(text)}}
		want, err := marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("text %.40q:\n got %.200s\nwant %.200s", text, got, want)
		}
		back, err := Decode(got)
		if err != nil || string(back.Text.Text) != text {
			t.Errorf("text %.40q does not decode back: %v", text, err)
		}
	}
}

// TestEncodeTextAllocates: encoding a text entry of megabytes allocates
// about the size of its JSON form once, not the several copies the
// generic encoder makes (each a buffer grown by doubling).
func TestEncodeTextAllocates(t *testing.T) {
	text := strings.Repeat("Undersea cables are spliced aboard the repair ship.\n", 80000) // 4 MB
	e := Entry{Kind: KindText, Key: TextKey(text), Text: &TextRecord{Text: String(text)}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b, err := Encode(e)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(len(b))*3/2 {
		t.Errorf("encoding a %d-byte text entry allocated %d bytes; want at most 1.5 times its size", len(b), grew)
	}
}

// FuzzTextEntry: a text entry of any text encodes as the generic encoder
// writes it, into a buffer sized by jsonStringLen, and decodes back.
func FuzzTextEntry(f *testing.F) {
	for _, s := range []string{"", "a\u2028b", "\x00\x1f\"\\", "\xe2\x80", "\xe2\x80\xa8\xe2\x80\xa9", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if utf8.ValidString(text) {
			if n, got := jsonStringLen(text), len(appendJSONString(nil, text)); n != got {
				t.Fatalf("jsonStringLen(%q) = %d; the string is written in %d bytes", text, n, got)
			}
		}
		e := Entry{Version: 2, Kind: KindText, Key: TextKey(text), Text: &TextRecord{Text: String(text)}}
		want, err := marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Encode(e)
		if err != nil || string(got) != string(want) {
			t.Fatalf("Encode = %s, %v; want %s", got, err, want)
		}
		back, err := Decode(got)
		if err != nil || string(back.Text.Text) != text {
			t.Fatalf("%s decodes to %+v, %v", got, back.Text, err)
		}
	})
}
