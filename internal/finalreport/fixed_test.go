package finalreport

import (
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/source"
)

// TestPublishFixed: sources with a Fixed number keep it whatever order
// the draft cites them in, another page of a fixed document shares its
// number, a source without one is numbered after the highest, and the
// reference list is in number order; the markdown and HTML renderings
// number the same way.
func TestPublishFixed(t *testing.T) {
	doc := func(id, url string) source.Source { return source.Source{ID: id, URL: url, Title: strings.ToUpper(id)} }
	page := doc("spec", "https://example.org/spec.pdf")
	page7 := page
	page.Location, page7.Location = source.Location{Kind: source.LocPage, Value: "4"}, source.Location{Kind: source.LocPage, Value: "7"}
	sources := []collapse.Source{
		{Number: 1, Source: doc("a", "https://example.org/a"), Fixed: 5},
		{Number: 2, Source: page, Fixed: 2},
		{Number: 3, Source: doc("new", "https://example.org/new")},
		{Number: 4, Source: page7},
	}
	pub, err := Publish("New first [3]. Then a [1]. The spec [4] and [2].", sources, citeproc.Plain)
	if err != nil {
		t.Fatal(err)
	}
	if want := "New first [6]. Then a [5]. The spec [2, p. 7] and [2, p. 4]."; pub.Body != want {
		t.Errorf("body %q, want %q", pub.Body, want)
	}
	var nums []int
	for _, ref := range pub.References {
		nums = append(nums, ref.Number)
	}
	if want := []int{2, 5, 6}; !equalInts(nums, want) {
		t.Errorf("references numbered %v, want %v", nums, want)
	}
	md := Markdown(pub, citeproc.Plain)
	if !strings.Contains(md, "New first [6]") || !strings.Contains(md, "[6] NEW.") {
		t.Errorf("markdown numbers differently:\n%s", md)
	}
	html, err := HTML("t", pub)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html, `href="#ref-6"`) || !strings.Contains(html, `id="ref-5"`) {
		t.Errorf("HTML numbers differently:\n%s", html)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
