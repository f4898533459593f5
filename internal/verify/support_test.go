package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The labelled set: passages of the Go documentation ($GOROOT/doc: the
// memory model, the specification, the GODEBUG guide), copied as text into
// testdata/support/passages.json, and sentences written about them, each
// labelled by hand as supported by its passage or not
// (testdata/support/claims.json). The unsupported ones are of three kinds:
// the passage's words saying something else (a flipped rule, a changed
// number), a claim on the passage's topic that it does not make, and a
// claim on another topic.

type passage struct {
	ID     string `json:"id"`
	Origin string `json:"origin"`
	Text   string `json:"text"`
}

type labelled struct {
	Passage   string `json:"passage"`
	Sentence  string `json:"sentence"`
	Supported bool   `json:"supported"`
}

// loadSupportSet reads the passages and the labelled sentences of claims
// (a file of testdata/support).
func loadSupportSet(t testing.TB, claims string) ([]passage, []labelled) {
	t.Helper()
	var ps []passage
	var cs []labelled
	for name, v := range map[string]any{"passages.json": &ps, claims: &cs} {
		b, err := os.ReadFile(filepath.Join("testdata", "support", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return ps, cs
}

// supportReport turns the labelled set into one report citing, after each
// sentence, the number of its passage: the set is checked the way reports
// are, sentence extraction included.
func supportReport(t testing.TB, ps []passage, cs []labelled) (string, []Source) {
	t.Helper()
	num := map[string]int{}
	var srcs []Source
	for i, p := range ps {
		num[p.ID] = i + 1
		srcs = append(srcs, Source{Number: i + 1, Title: p.ID, URL: "https://go.dev/doc/" + p.ID, Text: p.Text})
	}
	var b strings.Builder
	b.WriteString("# Labelled sentences\n\n")
	for _, c := range cs {
		n, ok := num[c.Passage]
		if !ok {
			t.Fatalf("claim %q: no passage %q", c.Sentence, c.Passage)
		}
		fmt.Fprintf(&b, "- %s [%d]\n", strings.TrimSuffix(c.Sentence, "."), n)
	}
	return b.String(), srcs
}

type confusion struct{ tp, fp, fn, tn int }

func (c confusion) precision() float64 { return float64(c.tp) / float64(max(1, c.tp+c.fp)) }
func (c confusion) recall() float64    { return float64(c.tp) / float64(max(1, c.tp+c.fn)) }

func measureSupport(t testing.TB, judge Judge) (confusion, []labelled) {
	return measureSupportOf(t, judge, "claims.json")
}

func measureSupportOf(t testing.TB, judge Judge, claims string) (confusion, []labelled) {
	ps, cs := loadSupportSet(t, claims)
	report, srcs := supportReport(t, ps, cs)
	res, err := Check(context.Background(), report, srcs, Options{Judge: judge})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Citations) != len(cs) {
		t.Fatalf("%d citations for %d sentences", len(res.Citations), len(cs))
	}
	var c confusion
	var wrong []labelled
	for i, ct := range res.Citations {
		if ct.Line != i+3 {
			t.Fatalf("citation %d on line %d, want %d", i, ct.Line, i+3)
		}
		got := ct.Status == Supported
		switch want := cs[i].Supported; {
		case got && want:
			c.tp++
		case got && !want:
			c.fp++
		case !got && want:
			c.fn++
		default:
			c.tn++
		}
		if got != cs[i].Supported {
			wrong = append(wrong, cs[i])
		}
	}
	return c, wrong
}

// TestSupportPrecisionRecall measures the lexical support check on the
// labelled set. Run with -v to see the figures and the sentences it gets
// wrong; the floors below are the figures measured when the threshold was
// set, less a margin, so that a change to the scorer that makes it worse
// fails.
func TestSupportPrecisionRecall(t *testing.T) {
	ps, cs := loadSupportSet(t, "claims.json")
	pos := 0
	for _, c := range cs {
		if c.Supported {
			pos++
		}
	}
	if len(cs) < 60 || pos == 0 || pos == len(cs) {
		t.Fatalf("labelled set: %d sentences, %d supported", len(cs), pos)
	}
	c, wrong := measureSupport(t, Lexical{})
	t.Logf("labelled set: %d passages, %d sentences (%d supported, %d not)", len(ps), len(cs), pos, len(cs)-pos)
	t.Logf("lexical, threshold %.2f: precision %.3f, recall %.3f (tp %d, fp %d, fn %d, tn %d)",
		DefaultThreshold, c.precision(), c.recall(), c.tp, c.fp, c.fn, c.tn)
	for _, w := range wrong {
		t.Logf("  wrong (labelled supported=%v): %s", w.Supported, w.Sentence)
	}
	for _, th := range []float64{0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8} {
		c, _ := measureSupport(t, Lexical{Threshold: th})
		t.Logf("  threshold %.2f: precision %.3f recall %.3f", th, c.precision(), c.recall())
	}
	if c.precision() < minPrecision || c.recall() < minRecall {
		t.Errorf("precision %.3f (floor %.2f), recall %.3f (floor %.2f)", c.precision(), minPrecision, c.recall(), minRecall)
	}
}

// TestLiteralPrecisionRecall measures the checks of what sentences say
// in so many words (quotations, figures, names) on a second labelled set
// over the same passages (testdata/support/literal.json): quotations word
// for word and misquoted, figures restated in other forms and changed,
// names changed. Run with -v for the figures and the sentences it gets
// wrong.
func TestLiteralPrecisionRecall(t *testing.T) {
	_, cs := loadSupportSet(t, "literal.json")
	c, wrong := measureSupportOf(t, Lexical{}, "literal.json")
	t.Logf("literal set: %d sentences; threshold %.2f: precision %.3f, recall %.3f (tp %d, fp %d, fn %d, tn %d)",
		len(cs), DefaultThreshold, c.precision(), c.recall(), c.tp, c.fp, c.fn, c.tn)
	for _, w := range wrong {
		t.Logf("  wrong (labelled supported=%v): %s", w.Supported, w.Sentence)
	}
	if c.precision() < minLiteralPrecision || c.recall() < minLiteralRecall {
		t.Errorf("precision %.3f (floor %.2f), recall %.3f (floor %.2f)", c.precision(), minLiteralPrecision, c.recall(), minLiteralRecall)
	}
}

// Floors for TestLiteralPrecisionRecall: the figures measured, less a
// margin.
const (
	minLiteralPrecision = 0.85
	minLiteralRecall    = 0.8
)

// Floors for TestSupportPrecisionRecall.
const (
	minPrecision = 0.85
	minRecall    = 0.9
)

// BenchmarkSupport checks the whole labelled set per iteration and reports
// precision and recall beside the time.
func BenchmarkSupport(b *testing.B) {
	ps, cs := loadSupportSet(b, "claims.json")
	report, srcs := supportReport(b, ps, cs)
	b.SetBytes(int64(len(report)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Check(context.Background(), report, srcs, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	c, _ := measureSupport(b, Lexical{})
	b.ReportMetric(c.precision(), "precision")
	b.ReportMetric(c.recall(), "recall")
}

// TestMisattribution measures how often the lexical check catches a
// supported sentence cited to the wrong source: each supported sentence of
// the labelled set cites the next passage (in the file's order) instead of
// its own. Every such citation is unsupported; the share flagged is the
// check's recall on misattributed citations.
func TestMisattribution(t *testing.T) {
	ps, cs := loadSupportSet(t, "claims.json")
	var wrong []labelled
	for _, c := range cs {
		if !c.Supported {
			continue
		}
		for i, p := range ps {
			if p.ID == c.Passage {
				c.Passage = ps[(i+1)%len(ps)].ID
				break
			}
		}
		wrong = append(wrong, c)
	}
	report, srcs := supportReport(t, ps, wrong)
	res, err := Check(context.Background(), report, srcs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	caught := 0
	for _, c := range res.Citations {
		if c.Status == Unsupported {
			caught++
		} else {
			t.Logf("  missed: %s (score %.2f)", c.Sentence, c.Score)
		}
	}
	rate := float64(caught) / float64(len(res.Citations))
	t.Logf("misattributed citations caught: %d of %d (%.3f)", caught, len(res.Citations), rate)
	if rate < 0.9 {
		t.Errorf("caught %.3f of misattributed citations, floor 0.9", rate)
	}
}
