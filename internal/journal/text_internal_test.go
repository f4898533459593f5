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
		if len(text) > 10 {
			e.N, e.Text.Parts = 2, 3 // a part of a longer text
		}
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
	for _, s := range []string{"", "a\u2028b", "\x00\x1f\"\\", "\xe2\x80", "\xe2\x80\xa8\xe2\x80\xa9", "\xff", "\xe2\x80\xe2\x80\xa8"} {
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

// TestTextParts: a long text is cut into parts of at most TextPart bytes,
// at character boundaries where it is UTF-8, which join into the text.
func TestTextParts(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
	}{
		{"short", "a short text"},
		{"ASCII", strings.Repeat("abcdefg\n", TextPart/4)},
		{"three-byte characters", "x" + strings.Repeat("日本語", TextPart/3)},
		{"four-byte characters", "xy" + strings.Repeat("🙂", TextPart/2)},
		{"not UTF-8", strings.Repeat("\xff\x80", TextPart)},
		{"control characters", strings.Repeat("a\x01", TextPart)},
		{"line separators", strings.Repeat("a\u2028\u2029", TextPart/2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts := textParts(tc.text)
			if strings.Join(parts, "") != tc.text {
				t.Fatal("the parts do not join into the text")
			}
			if len(tc.text) > TextPart && len(parts) < 2 {
				t.Errorf("a %d-byte text in %d part", len(tc.text), len(parts))
			}
			for i, p := range parts {
				if len(p) > TextPart || len(p) == 0 {
					t.Errorf("part %d has %d bytes", i, len(p))
				}
				if utf8.ValidString(tc.text) && !utf8.ValidString(p) {
					t.Errorf("part %d is cut inside a character", i)
				}
				if b, _ := marshal(String(p)); len(b) > TextPart {
					t.Errorf("part %d takes %d bytes of JSON", i, len(b))
				}
			}
		})
	}
}
