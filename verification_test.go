package deepresearch_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/internal/events"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/purpose"
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
		rep, err := r.RunWith(context.Background(), question, rec.sink)
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
		action deepresearch.Action
		check  func(t *testing.T, text string)
	}{
		{deepresearch.UnsupportedFlag, func(t *testing.T, text string) {
			if !strings.Contains(text, "[unsupported") {
				t.Errorf("the false claim's citation is not flagged:\n%s", text)
			}
		}},
		{deepresearch.UnsupportedRemove, func(t *testing.T, text string) {
			line := text[strings.Index(text, claim):]
			line, _, _ = strings.Cut(line, "\n")
			if strings.Contains(line, "[") {
				t.Errorf("the false claim keeps its citation: %q", line)
			}
		}},
		{deepresearch.UnsupportedKeep, func(t *testing.T, text string) {
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
			rep, err := r.RunWith(context.Background(), question, rec.sink)
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
		{"removed", deepresearch.Config{Model: falseClaim{extractive.New(extractive.Options{})}, Unsupported: deepresearch.UnsupportedRemove}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := newResearcher(t, tc.cfg).RunWith(context.Background(), question, nil)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := rep.Render(deepresearch.FormatJSON)
			if err != nil {
				t.Fatal(err)
			}
			srcs, err := deepresearch.ParseSources(doc)
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
			res, err := deepresearch.Verify(context.Background(), rep.Body, srcs, deepresearch.VerifyOptions{Scope: deepresearch.ScopeCitations})
			if err != nil {
				t.Fatal(err)
			}
			again, err := deepresearch.Verify(context.Background(), rep.Body, cited, deepresearch.VerifyOptions{Scope: deepresearch.ScopeCitations})
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
