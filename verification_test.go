package deepresearch_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/purpose"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/source"
	"github.com/deepresearch/deepresearch/verify"
)

// falseClaim makes the writer add a sentence its citation does not
// support, as a model that misattributes would.
type falseClaim struct{ llms.Model }

const claim = "Giraffes invented the transistor in the Pliocene"

func (m falseClaim) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	resp, err := m.Model.GenerateContent(ctx, msgs, opts...)
	if err != nil || purpose.Of(ctx) != purpose.Writer {
		return resp, err
	}
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	extra := "\n\n" + claim + " [1].\n"
	if o.StreamingFunc != nil {
		if err := o.StreamingFunc(ctx, []byte(extra)); err != nil {
			return nil, err
		}
	}
	resp.Choices[0].Content += extra
	return resp, nil
}

// TestVerificationInEveryRun: the last stage checks every citation against
// the text its source was read with, reports it (Report.Verification, a
// report.verified event) and flags or removes unsupported citations.
func TestVerificationInEveryRun(t *testing.T) {
	t.Run("clean run", func(t *testing.T) {
		r := newResearcher(t, deepresearch.Config{})
		rec := &recorder{}
		rep, err := runWith(context.Background(), r, question, rec.sink)
		if err != nil {
			t.Fatal(err)
		}
		v := rep.Verification
		if v == nil || v.Summary.Citations == 0 || v.Summary.Fabricated != 0 || !v.Pass(false) {
			t.Fatalf("verification %+v", v)
		}
		if evs := rec.of(events.ReportVerified); len(evs) != 1 {
			t.Fatalf("%d report.verified events", len(evs))
		}
		if rep.Verification.Summary.Supported == 0 {
			t.Errorf("no citation of the extractive report was found supported: %+v", v.Summary)
		}
	})
	for _, tc := range []struct {
		action verify.Action
		check  func(t *testing.T, text string)
	}{
		{verify.Flag, func(t *testing.T, text string) {
			if !strings.Contains(text, "[unsupported") {
				t.Errorf("the false claim's citation is not flagged:\n%s", text)
			}
		}},
		{verify.Remove, func(t *testing.T, text string) {
			line := text[strings.Index(text, claim):]
			line, _, _ = strings.Cut(line, "\n")
			if strings.Contains(line, "[") {
				t.Errorf("the false claim keeps its citation: %q", line)
			}
		}},
		{verify.Keep, func(t *testing.T, text string) {
			line := text[strings.Index(text, claim):]
			line, _, _ = strings.Cut(line, "\n")
			if !strings.Contains(line, "[[1]](") {
				t.Errorf("keep changed the claim's citation: %q", line)
			}
		}},
	} {
		t.Run(string(tc.action), func(t *testing.T) {
			r := newResearcher(t, deepresearch.Config{Model: falseClaim{extractive.New(extractive.Options{})}, Unsupported: tc.action})
			rec := &recorder{}
			rep, err := runWith(context.Background(), r, question, rec.sink)
			if err != nil {
				t.Fatal(err)
			}
			v := rep.Verification
			if v == nil || v.Summary.Unsupported == 0 || v.Action != tc.action {
				t.Fatalf("verification %+v, want the unsupported claim found", v)
			}
			var found bool
			for _, p := range v.Problems {
				if p.Kind == "unsupported" && strings.Contains(strings.Split(rep.Body, "\n")[p.Line-1], claim) {
					found = true
				}
			}
			if !found {
				t.Errorf("no unsupported problem on the claim's line: %+v", v.Problems)
			}
			tc.check(t, rep.Text)
			roundTrip(t, rep)
			checkCitations(t, rep, rec)
		})
	}
}

// A run's JSON report is enough to verify it again, anywhere: its
// references carry the hash of the text read and the passages each
// citation was checked against, and the check finds what the run found.
// So also after a fix that dropped a citation and renumbered the
// references (remove).
func TestJSONReportVerifiesAlone(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  deepresearch.Config
	}{
		{"clean", deepresearch.Config{}},
		{"removed", deepresearch.Config{Model: falseClaim{extractive.New(extractive.Options{})}, Unsupported: verify.Remove}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := runWith(context.Background(), newResearcher(t, tc.cfg), question, nil)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := rep.Render(render.JSON)
			if err != nil {
				t.Fatal(err)
			}
			srcs, err := verify.ParseSources(doc)
			if err != nil {
				t.Fatal(err)
			}
			cited := rep.CitedSources(nil)
			for i, s := range srcs {
				if s.Text != "" || len(s.Passages) == 0 || s.TextSHA256 != sha256Hex(cited[i].Text) {
					t.Fatalf("reference %d: %d passages, text_sha256 %q", s.Number, len(s.Passages), s.TextSHA256)
				}
				for _, p := range s.Passages {
					if !p.Intact() || cited[i].Text[p.Start:p.End] != p.Text {
						t.Errorf("reference %d: passage %+v is not the text read", s.Number, p)
					}
				}
			}
			if !strings.Contains(string(doc), `"run_id": "`+rep.RunID+`"`) {
				t.Errorf("no run_id in the JSON report")
			}
			res, err := verify.Verify(context.Background(), rep.Body, srcs, verify.Options{Scope: verify.ScopeCitations})
			if err != nil {
				t.Fatal(err)
			}
			again, err := verify.Verify(context.Background(), rep.Body, cited, verify.Options{Scope: verify.ScopeCitations})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Pass(false) || res.Summary.Fabricated != 0 || res.Summary.Supported != again.Summary.Supported {
				t.Errorf("against the passages %+v\nagainst the texts %+v", res.Summary, again.Summary)
			}
		})
	}
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// quoting makes the writer add two quotations of the first sentence its
// draft cites: one word for word, one with a word changed, as a model
// that misquotes would.
type quoting struct{ llms.Model }

// changedWord is the word the misquotation puts in.
const changedWord = "elsewhere"

var citedSentenceRe = regexp.MustCompile(`(?m)^(\p{Lu}[^\[\]\n]{20,}?[.!?]) \[(\d+)\]`)

func (m quoting) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	resp, err := m.Model.GenerateContent(ctx, msgs, opts...)
	if err != nil || purpose.Of(ctx) != purpose.Writer {
		return resp, err
	}
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	sm := citedSentenceRe.FindStringSubmatch(resp.Choices[0].Content)
	if sm == nil {
		return nil, fmt.Errorf("no cited sentence in the draft:\n%s", resp.Choices[0].Content)
	}
	s, n := strings.TrimSuffix(sm[1], "."), sm[2]
	words := strings.Fields(s)
	words[len(words)/2] = changedWord
	extra := fmt.Sprintf("\n\nAs the source puts it, “%s” [%s].\n\nThe source also says “%s” [%s].\n", s, n, strings.Join(words, " "), n)
	if o.StreamingFunc != nil {
		if err := o.StreamingFunc(ctx, []byte(extra)); err != nil {
			return nil, err
		}
	}
	resp.Choices[0].Content += extra
	return resp, nil
}

// TestVerificationOfQuotations: in a run, a quotation of a source word for
// word is supported (never flagged), and a misquotation is an error of its
// own kind, flagged in the report, and the JSON report says it failed.
func TestVerificationOfQuotations(t *testing.T) {
	rep, err := runWith(context.Background(), newResearcher(t, deepresearch.Config{Model: quoting{extractive.New(extractive.Options{})}}), question, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(rep.Text, "\n")
	var exact, misquoted string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "As the source puts it"):
			exact = l
		case strings.HasPrefix(l, "The source also says"):
			misquoted = l
		}
	}
	if strings.Contains(exact, "[unsupported") || !strings.Contains(misquoted, "[unsupported") {
		t.Errorf("the exact quotation flagged, or the misquotation not:\n%s\n%s", exact, misquoted)
	}
	v := rep.Verification
	var kinds []verify.ProblemKind
	for _, p := range v.Problems {
		kinds = append(kinds, p.Kind)
		if p.Kind == verify.ProblemMisquote && (p.Severity != "error" || !strings.Contains(p.Message, changedWord) ||
			!strings.Contains(strings.Split(rep.Body, "\n")[p.Line-1], "The source also says")) {
			t.Errorf("misquote problem %+v", p)
		}
	}
	if fmt.Sprint(kinds) != "[misquote]" || v.Pass(false) {
		t.Errorf("problems %+v, pass %v; want one misquote, failing", v.Problems, v.Pass(false))
	}
	doc, err := rep.Render(render.JSON)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), `"validated": "failed"`) {
		t.Errorf("the JSON report does not say validation failed")
	}
}

// TestVerificationOfPinpoints: a pinpoint to a row the run never read of
// a CSV catalogue it cites (a row beyond the file) is an error when the
// run's report is verified against the run's own sources, as `verify
// --run` does; the row it read is supported.
func TestVerificationOfPinpoints(t *testing.T) {
	r, err := deepresearch.New(deepresearch.Config{Search: deepresearchtest.Corpus(t, documentCorpus(t), filepath.Join(t.TempDir(), "index.db"))})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rep, err := runWith(context.Background(), r, "How much battery life does the TechBook Air laptop have?", nil)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := referenceAt(t, rep, "catalog.csv", source.Location{Kind: source.LocRow, Value: "3"})
	for _, tc := range []struct {
		row  string
		kind verify.ProblemKind // "" for none
	}{
		{"3", ""},
		{"99", verify.ProblemBadLocator},
	} {
		t.Run("row "+tc.row, func(t *testing.T) {
			body := rep.Body + fmt.Sprintf("\nThe TechBook Air has 18 hours of battery [%d, row %s].\n", ref.Number, tc.row)
			res, err := verify.Verify(context.Background(), body, rep.CitedSources(nil), verify.Options{Scope: verify.ScopeCitations})
			if err != nil {
				t.Fatal(err)
			}
			var kinds []verify.ProblemKind
			for _, p := range res.Problems {
				kinds = append(kinds, p.Kind)
			}
			if tc.kind == "" && len(kinds) > 0 || tc.kind != "" && fmt.Sprint(kinds) != fmt.Sprint([]verify.ProblemKind{tc.kind}) {
				t.Errorf("problems %+v, want %q", res.Problems, tc.kind)
			}
			if res.Pass(false) != (tc.kind == "") {
				t.Errorf("pass %v", res.Pass(false))
			}
		})
	}
}
