package verify_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/verify"
)

var cables = []verify.Source{{Number: 1, Title: "Cable faults", Text: "Most submarine cable faults are caused by fishing trawlers and ship anchors."}}

// TestScope: each scope's text form is accepted ("all" too), another is
// an error wrapping ErrScope; a scope narrows the checks.
func TestScope(t *testing.T) {
	report := "Trawlers always cause cable faults [1]. Repairs cost $2 million each.\n"
	for _, tt := range []struct {
		scope     verify.Scope
		wantKinds string // the problems' kinds, in order
	}{
		{verify.ScopeAll, "overclaim statistic"},
		{"all", "overclaim statistic"},
		{verify.ScopeCitations, ""},
		{verify.ScopeCorpus, ""},
	} {
		res, err := verify.Verify(context.Background(), report, cables, verify.Options{Scope: tt.scope})
		if err != nil {
			t.Fatalf("%q: %v", tt.scope, err)
		}
		var kinds []string
		for _, p := range res.Problems {
			kinds = append(kinds, string(p.Kind))
		}
		if got := strings.Join(kinds, " "); got != tt.wantKinds {
			t.Errorf("%q: problems %q, want %q", tt.scope, got, tt.wantKinds)
		}
	}
	if _, err := verify.Verify(context.Background(), report, cables, verify.Options{Scope: "prose"}); !errors.Is(err, verify.ErrScope) {
		t.Errorf("scope prose: %v, want ErrScope", err)
	}
}

// TestUnsupportedAction: Fix acts on unsupported citations as
// Unsupported says, and refuses an action it does not know.
func TestUnsupportedAction(t *testing.T) {
	report := "Cables are made of cheese [1].\n"
	for _, tt := range []struct {
		action verify.Action
		want   string
	}{
		{verify.Keep, "Cables are made of cheese [1].\n"},
		{"", "[unsupported"},
		{verify.Flag, "[unsupported"},
		{verify.Remove, "cheese<!-- verify: removed [1]: source 1 does not support the sentence -->."},
	} {
		res, err := verify.Verify(context.Background(), report, cables, verify.Options{Fix: true, Unsupported: tt.action})
		if err != nil {
			t.Fatalf("%q: %v", tt.action, err)
		}
		if !strings.Contains(res.Fixed, tt.want) {
			t.Errorf("%q: fixed %q, want it to hold %q", tt.action, res.Fixed, tt.want)
		}
	}
	if _, err := verify.Verify(context.Background(), report, cables, verify.Options{Fix: true, Unsupported: "shred"}); err == nil || !strings.Contains(err.Error(), "shred") {
		t.Errorf("action shred: %v, want an error naming it", err)
	}
}

// failingModel answers every call with an error, as a provider that is
// down does.
type failingModel struct{ calls int }

func (m *failingModel) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	m.calls++
	return nil, errors.New("provider down")
}

func (m *failingModel) Call(context.Context, string, ...llms.CallOption) (string, error) {
	m.calls++
	return "", errors.New("provider down")
}

// TestModelFallsBack: a model that cannot judge is replaced by the
// lexical judge; the verdicts are the lexical ones and no error is
// returned.
func TestModelFallsBack(t *testing.T) {
	report := "Most cable faults are caused by fishing trawlers [1].\n"
	m := &failingModel{}
	res, err := verify.Verify(context.Background(), report, cables, verify.Options{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	if m.calls == 0 {
		t.Error("the model was never asked")
	}
	if res.Summary.Supported != 1 || len(res.Citations) != 1 || res.Citations[0].Status != verify.StatusSupported {
		t.Errorf("summary %+v, citations %+v: want the one citation supported lexically", res.Summary, res.Citations)
	}
}

// TestJSONReportText: a JSON report is verified by its text, another's
// document by its sidecar's claims, one a line; a sidecar that cites
// other numbers than it lists is a problem; a document with neither is an
// error.
func TestJSONReportText(t *testing.T) {
	text, fromSidecar, probs, err := verify.JSONReportText([]byte(`{"text": "Trawlers cut cables [1].", "_citations": [{"path": "/text", "sids": [1]}]}`))
	if err != nil || fromSidecar || text != "Trawlers cut cables [1]." || len(probs) != 0 {
		t.Errorf("a report: %q %v %+v %v", text, fromSidecar, probs, err)
	}
	text, fromSidecar, probs, err = verify.JSONReportText([]byte(`{"claims": ["Trawlers cut cables.", "Anchors drag."], "_citations": [{"path": "/claims/0", "sids": [1]}, {"path": "/claims/1", "sids": [2]}]}`))
	if err != nil || !fromSidecar || text != "Trawlers cut cables. [1]\nAnchors drag. [2]\n" || len(probs) != 0 {
		t.Errorf("a sidecar: %q %v %+v %v", text, fromSidecar, probs, err)
	}
	_, _, probs, err = verify.JSONReportText([]byte(`{"text": "Trawlers cut cables [2].", "_citations": [{"path": "/text", "sids": [1]}]}`))
	if err != nil || len(probs) != 1 || probs[0].Index != 0 {
		t.Errorf("a wrong sidecar: %+v %v, want one problem with entry 0", probs, err)
	}
	if _, _, _, err := verify.JSONReportText([]byte(`{"title": "x"}`)); err == nil {
		t.Error("a document with neither text nor sidecar: no error")
	}
}
