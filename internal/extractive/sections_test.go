package extractive

import (
	"context"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/source"
)

// The section and frame writers, through the real protocol:
// finalreport writes the messages, this model answers them.
func TestSectionAndFrame(t *testing.T) {
	sources := []collapse.Source{{Number: 1, Source: source.Source{ID: "a", Title: "A"}}, {Number: 2, Source: source.Source{ID: "b", Title: "B"}}}
	findings := "Raft elects a leader by a vote of the servers [1]. The leader replicates its log to the followers [2].\n\n" +
		"Raft elects a leader by a vote of the servers [1]. An uncited sentence is never quoted here.\n\n" +
		"Terms number the elections of the leader one after another [1]."
	m := New(Options{})
	text, _, err := finalreport.WriteSection(context.Background(), finalreport.Config{Model: m},
		finalreport.SectionInput{Question: "How does Raft elect a leader?", Title: "Leader election", Findings: findings, Sources: sources})
	if err != nil {
		t.Fatal(err)
	}
	want := "Raft elects a leader by a vote of the servers [1]. The leader replicates its log to the followers [2].\n\nTerms number the elections of the leader one after another [1]."
	if text != want {
		t.Errorf("section:\n%q\nwant\n%q", text, want)
	}
	empty, _, _ := finalreport.WriteSection(context.Background(), finalreport.Config{Model: m},
		finalreport.SectionInput{Question: "How does Raft elect a leader?", Title: "Nothing", Findings: NoEvidence, Sources: sources})
	if empty != NoSectionEvidence {
		t.Errorf("a section without cited findings: %q", empty)
	}
	f, _, err := finalreport.WriteFrame(context.Background(), finalreport.Config{Model: m}, "How does Raft elect a leader?",
		[]finalreport.Part{{Title: "Leader election", Text: text}, {Title: "Terms", Text: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if f.Title != "How does Raft elect a leader?" || f.Summary != "" ||
		f.Intro != "The sections below answer the question part by part: Leader election; Terms." {
		t.Errorf("frame %+v", f)
	}
	if strings.Contains(f.Intro, "[") {
		t.Errorf("the frame cites: %q", f.Intro)
	}
}
