package finalreport

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/source"
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
	if want := []int{2, 5, 6}; !slices.Equal(nums, want) {
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

// TestPublishFixedAnyOrder: whatever order a draft cites sources in, a
// source with a Fixed number is shown under it, every other document
// under a number of its own above the highest Fixed one, and the
// reference list is in number order.
func TestPublishFixedAnyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 1))
	for range 200 {
		n := 1 + rng.IntN(8)
		var sources []collapse.Source
		maxFixed := 0
		for i := range n {
			s := collapse.Source{Number: i + 1, Source: source.Source{ID: "d" + strconv.Itoa(i), URL: "https://example.org/" + strconv.Itoa(i)}}
			if rng.IntN(2) == 0 {
				s.Fixed = 1 + rng.IntN(20)
				for slices.ContainsFunc(sources, func(o collapse.Source) bool { return o.Fixed == s.Fixed }) {
					s.Fixed++
				}
				maxFixed = max(maxFixed, s.Fixed)
			}
			sources = append(sources, s)
		}
		var draft strings.Builder
		for range 1 + rng.IntN(12) {
			fmt.Fprintf(&draft, "Claim [%d]. ", 1+rng.IntN(n))
		}
		pub, err := Publish(draft.String(), sources, citeproc.Plain)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int]string{}
		for i, ref := range pub.References {
			if i > 0 && ref.Number <= pub.References[i-1].Number {
				t.Fatalf("%q: references out of order: %+v", draft.String(), pub.References)
			}
			src := sources[slices.IndexFunc(sources, func(s collapse.Source) bool { return s.ID == ref.ID })]
			switch {
			case src.Fixed > 0 && ref.Number != src.Fixed:
				t.Fatalf("%q: %s is [%d], fixed at [%d]", draft.String(), ref.ID, ref.Number, src.Fixed)
			case src.Fixed == 0 && ref.Number <= maxFixed:
				t.Fatalf("%q: %s is [%d], not above the fixed %d", draft.String(), ref.ID, ref.Number, maxFixed)
			}
			if other, dup := seen[ref.Number]; dup {
				t.Fatalf("%q: %s and %s are both [%d]", draft.String(), other, ref.ID, ref.Number)
			}
			seen[ref.Number] = ref.ID
		}
	}
}
