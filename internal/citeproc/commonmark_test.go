package citeproc_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/yuin/goldmark"
)

var codeRE = regexp.MustCompile(`(?s)<code[^>]*>.*?</code>`)
var markRE = regexp.MustCompile(`\[(\d+)\]`)

// TestBlocksAgreeWithCommonMark is a differential test of the container,
// fence, indented-code and HTML-block rules: on random documents made of
// lines that open and continue list items, block quotes, fences (indented
// and not), indented code, comments, headings and thematic breaks, the
// markers Keep mode reads as citations are exactly those a CommonMark
// renderer (goldmark) shows as prose. Code spans across lines are not
// modelled (documented), so documents where goldmark finds one are skipped.
func TestBlocksAgreeWithCommonMark(t *testing.T) {
	vocab := []string{"", "", "text %s", "- text %s", "* text %s", "1. text %s", "2) text %s", "> text %s", "> - text %s",
		">> text %s", "  text %s", "    text %s", "      text %s", "\ttext %s", "```", "~~~", "````", "  ```", "    ```",
		"- ```", "> ```", "1. ```", "   ```", "  - ```", "<!-- %s -->", "---", "# head %s", "> ", "-", "   > text %s", "     ```",
		"> > text %s", ">     text %s", "- > text %s", "1.  text %s", "-     text %s", "   - text %s", "<pre>", "</pre>",
		"text <!-- %s --> more", "~~~~", ">", "  ", "1. - text %s", "===", "***", "- ~~~"}
	r := rand.New(rand.NewPCG(11, 12))
	mult := 1
	if testing.Short() {
		mult = 0
	}
	if os.Getenv("CITEPROC_SWEEP") != "" {
		mult = 20
	}
	bad := 0
	for k := 0; k < 3000*mult && bad < 5; k++ {
		var b strings.Builder
		n := 0
		lines := 2 + r.IntN(10)
		for l := 0; l < lines; l++ {
			v := vocab[r.IntN(len(vocab))]
			if strings.Contains(v, "%s") {
				n++
				v = fmt.Sprintf(v, "["+strconv.Itoa(n)+"]")
			}
			b.WriteString(v + "\n")
		}
		in := b.String()
		var h bytes.Buffer
		goldmark.Convert([]byte(in), &h)
		if strings.Contains(strings.ReplaceAll(h.String(), "<pre><code", ""), "<code") {
			continue // a code span across lines: not modelled (documented)
		}
		prose := codeRE.ReplaceAllString(h.String(), "")
		var want []int
		for _, m := range markRE.FindAllStringSubmatch(prose, -1) {
			v, _ := strconv.Atoi(m[1])
			want = append(want, v)
		}
		slices.Sort(want)
		mp := citeproc.NewMapping(nil)
		for i := 1; i <= n; i++ {
			mp.Add(i, citeproc.Source{ID: strconv.Itoa(i)})
		}
		p := citeproc.New(&strings.Builder{}, citeproc.Config{Mapping: mp})
		p.WriteString(in)
		p.Close()
		var got []int
		for _, c := range p.Cited() {
			got = append(got, c.Number)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			bad++
			t.Errorf("in %q\ngoldmark prose %v, ours %v\n%s", in, want, got, h.String())
		}
	}
}
