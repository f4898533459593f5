package extract

import (
	"strings"
	"testing"
	"unicode"

	"github.com/deepresearch/deepresearch/internal/sourcetext"
)

const readableArticle = `<!DOCTYPE html>
<html><head><meta charset="iso-8859-1"><title>Cable ships | Sea News</title>
<meta property="og:title" content="How cable ships lay fibre">
<script>var tracking = "SCRIPT-SHOULD-NOT-APPEAR";</script>
<style>.x{color:red}</style></head>
<body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/about">NAV-SHOULD-NOT-APPEAR</a></li></ul></nav>
<article>
<h1>How cable ships lay fibre</h1>
<p>The café on board serves the crew while a cable ship pays out fibre-optic cable from huge tanks in its hold, at a speed matched to the ship's own so that the cable settles onto the seabed without tension.</p>
<p>A plough towed behind the ship buries the cable in shallow water, where anchors and fishing gear would otherwise damage it; in the deep ocean the cable simply lies on the bottom.` + "\u202e" + `hidden` + "\u202c" + ` Repairs are made by grappling the cable, lifting both ends and splicing in a new section.</p>
<p>Modern repeaters amplify the light signal every seventy kilometres or so, powered through a copper conductor in the cable itself.` + "\x07" + `</p>
</article>
<footer>FOOTER-SHOULD-NOT-APPEAR Copyright</footer>
</body></html>`

func TestReadable(t *testing.T) {
	tests := []struct {
		name      string
		html      string
		wantTitle string
		want      []string
		notWant   []string
		wantErr   bool
	}{
		{
			name:      "article",
			html:      readableArticle,
			wantTitle: "How cable ships lay fibre",
			want:      []string{"The café on board", "grappling the cable", "seventy kilometres"},
			notWant:   []string{"SCRIPT-SHOULD-NOT-APPEAR", "NAV-SHOULD-NOT-APPEAR", "FOOTER-SHOULD-NOT-APPEAR", "color:red", "\u202e", "\x07"},
		},
		{
			name:    "no text",
			html:    `<html><head><title>Empty</title></head><body><script>x()</script></body></html>`,
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			title, text, err := Readable([]byte(tt.html), "https://example.com/cables")
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "https://example.com/cables") {
					t.Fatalf("err = %v, want an error naming the page", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if title != tt.wantTitle {
				t.Errorf("title = %q, want %q", title, tt.wantTitle)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("text lacks %q:\n%s", w, text)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(text, w) {
					t.Errorf("text contains %q:\n%s", w, text)
				}
			}
			for _, r := range title + text {
				if r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
					t.Errorf("output contains control or format character %U", r)
				}
			}
		})
	}
}

func TestReadableClean(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"control characters", "a\x00b\x1bc\u200bd\r\ne", "abcd\ne"},
		{"blank runs", "a\n\n\n\nb  \n", "a\n\nb"},
		{"invalid UTF-8", "a\xffb", "ab"},
		{"tabs kept", "a\tb", "a\tb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := readableClean(tt.in); got != tt.want {
				t.Errorf("readableClean(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func BenchmarkReadable(b *testing.B) {
	html := []byte(readableArticle)
	b.SetBytes(int64(len(html)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Readable(html, "https://example.com/cables"); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzReadable: any input gives an error or clean text, never a panic;
// a date it reads is ISO 8601 that reads back the same.
func FuzzReadable(f *testing.F) {
	f.Add([]byte(readableArticle))
	f.Add([]byte("<html><body><p>short</p></body></html>"))
	f.Add([]byte("<table><tr><td><p>a<td>b</table><svg><math><p>x"))
	f.Add([]byte(`<meta property="article:published_time" content="2024-03-15T10:00:00+01:00"><script type="application/ld+json">[{"@graph":[{"dateModified":"2024-01-02"}]}]</script><article><time datetime="2020-01-01">x</time><p>text</p></article>`))
	f.Fuzz(func(t *testing.T, html []byte) {
		a, err := ReadableArticle(html, "https://example.com/")
		for _, d := range []string{a.Published, a.Modified} {
			if d != "" && sourcetext.ParseDate(d) != d {
				t.Fatalf("date %q does not read back as itself", d)
			}
		}
		if err != nil {
			return
		}
		title, text := a.Title, a.Text
		for _, r := range title + text {
			if r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
				t.Fatalf("output contains %U", r)
			}
		}
		if strings.Contains(title, "\n") {
			t.Fatalf("title has a newline: %q", title)
		}
	})
}
