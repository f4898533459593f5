// Package finalreport writes the final report of a research run from the
// merged findings, and publishes it: citations renumbered 1..K in order of
// first appearance, rendered in the reader's link style, with a reference
// list of exactly the sources cited.
//
// The model's output streams through two citation processors side by side,
// each resolving the findings' global numbers and renumbering them 1..K by
// first appearance: one writes Body (plain [n] markers), the other Text in
// the requested style. Every rendering (Text, HTML, the JSON sidecar) is
// made from the writer's own text, never by re-reading rendered output, so
// nothing a rendering produces can turn into a citation. Citation facts
// are reported before the text that uses them. A number the writer cites
// that is not a merged source is dropped and reported, never resolved to
// another source.
package finalreport

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/purpose"
	"github.com/deepresearch/deepresearch/internal/usage"
	"github.com/deepresearch/deepresearch/source"
)

// Hooks receive the report as it is written. Nil fields are skipped; they
// are called synchronously from Write's goroutine.
type Hooks struct {
	// Delta receives the styled report text as it streams.
	Delta func(text string)
	// Citation is called when reference n is first cited, before the text
	// that cites it is passed to Delta (once per reference: a document
	// cited at several pages is one reference; src is at the first).
	Citation func(n int, src source.Source)
	// Unknown is called the first time the writer cites a number (or a
	// URL, or a bracket of citation-like numbers) that is no merged source:
	// the citation is dropped from the report (and listed in
	// Report.Unknown), never resolved to another source.
	Unknown func(citeproc.Unknown)
}

// Config configures Write.
type Config struct {
	Model llms.Model
	// Style is how citations are rendered in Report.Text.
	Style citeproc.Style
	// MaxTokens caps the report turn's completion (0: no cap).
	MaxTokens int
	Hooks     Hooks
}

// Missing is a part of the plan whose research failed.
type Missing struct {
	Section string
	Reason  string
}

// Input is what the writer works from.
type Input struct {
	Question string
	// Sections are the merged agent reports, in plan order, with global
	// citation numbers.
	Sections []collapse.MergedReport
	// Sources are the merged sources, numbered as in Sections.
	Sources []collapse.Source
	// Missing lists failed research tasks; the report says so.
	Missing []Missing
	// Notices are sentences the report must carry about how it was made
	// ("Research stopped early: …"), added after the writer's text.
	Notices []string
	// Controls shape the report: its length, sections, language and
	// audience. The zero value leaves them to the writer.
	Controls Controls
	// Prior is the report a follow-up question follows up, which its
	// reader has, citing Sources by their merged numbers ("": none): the
	// writer is shown it before the findings, as context, not as
	// findings.
	Prior string
}

// Controls are a person's wishes for the report, given to the writer as
// lines after the question ("Target length: 300 words", "Outline: A | B",
// "Language: French", "Audience: …").
type Controls struct {
	// Length is the report's target length in words (0: the writer's).
	Length int
	// Outline names the report's sections, in order (nil: the writer's).
	Outline []string
	// Language is the report's language ("": the question's).
	Language string
	// Audience says who reads the report and in what tone ("": general).
	Audience string
}

// lines lays out c for the writer's message, one "Name: value" line each
// control that is set.
func (c Controls) lines() string {
	var b strings.Builder
	if c.Length > 0 {
		fmt.Fprintf(&b, "Target length: %d words\n", c.Length)
	}
	if len(c.Outline) > 0 {
		parts := make([]string, len(c.Outline))
		for i, o := range c.Outline {
			parts[i] = strings.Join(strings.Fields(o), " ")
		}
		fmt.Fprintf(&b, "Outline: %s\n", strings.Join(parts, " | "))
	}
	if l := strings.Join(strings.Fields(c.Language), " "); l != "" {
		fmt.Fprintf(&b, "Language: %s\n", l)
	}
	if a := strings.Join(strings.Fields(c.Audience), " "); a != "" {
		fmt.Fprintf(&b, "Audience: %s\n", a)
	}
	return b.String()
}

// Report is the published final report. It is plain data: Draft and
// Sources determine everything else (Publish rebuilds Body, Text and
// References from them byte for byte), so a report stored as JSON and
// reloaded renders exactly as it did.
type Report struct {
	// Draft is the writer's text, with the note on missing research,
	// citing Sources by their merged numbers.
	Draft string `json:"draft"`
	// Sources are the merged sources Draft's numbers refer to.
	Sources []collapse.Source `json:"sources"`
	// Body is the report with plain [n] markers numbered 1..K.
	Body string `json:"body"`
	// Text is Body with citations rendered in the configured style.
	Text string `json:"text"`
	// References are the cited sources, numbered 1..K.
	References []Reference `json:"references"`
	// Unknown are numbers the writer cited that were not merged sources;
	// they were dropped from the text.
	Unknown []citeproc.Unknown `json:"unknown,omitempty"`
	// Used are the merged numbers (of Sources) the writer named in usage
	// tags ([[USAGE:1,3,5]], seed 001's usage telemetry), in order, no
	// repeats: sources it used, cited inline or not. The tags themselves
	// are removed from Body and Text.
	Used  []int       `json:"used,omitempty"`
	Usage usage.Usage `json:"usage"`
}

// Write asks the model for the final report and publishes it. The model's
// text streams through the publisher as it arrives: Hooks see each
// citation before the text that uses it.
func Write(ctx context.Context, cfg Config, in Input) (*Report, error) {
	if cfg.Model == nil {
		return nil, fmt.Errorf("finalreport: no model")
	}
	pub, err := newPublisher(in.Sources, cfg.Style, cfg.Hooks)
	if err != nil {
		return nil, err
	}
	streamed := false
	opts := []llms.CallOption{llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
		if len(chunk) == 0 {
			return nil
		}
		streamed = true
		return pub.write(string(chunk))
	})}
	if cfg.MaxTokens > 0 {
		opts = append(opts, llms.WithMaxTokens(cfg.MaxTokens))
	}
	resp, err := cfg.Model.GenerateContent(purpose.With(ctx, purpose.Writer), messages(in), opts...)
	if err != nil {
		return nil, fmt.Errorf("finalreport: model: %w", err)
	}
	if len(resp.Choices) == 0 {
		return nil, fmt.Errorf("finalreport: model returned no choices")
	}
	choice := resp.Choices[0]
	if !streamed {
		pub.write(choice.Content)
	}
	if note := notes(in); note != "" {
		if !strings.HasSuffix(pub.draft.String(), "\n") {
			pub.write("\n")
		}
		pub.write(note)
	}
	rep, err := pub.close()
	if err != nil {
		return nil, err
	}
	rep.Usage = usage.Of(choice)
	return rep, nil
}

// Publish publishes a draft that cites sources by their merged numbers:
// citations renumbered 1..K by first appearance, Text in style, the
// reference list exactly the sources cited. It is what Write does with
// the model's text, and how a stored report is rebuilt.
func Publish(draft string, sources []collapse.Source, style citeproc.Style) (*Report, error) {
	pub, err := newPublisher(sources, style, Hooks{})
	if err != nil {
		return nil, err
	}
	pub.write(draft)
	return pub.close()
}

// publisher runs a draft through two citation processors side by side,
// each resolving the merged numbers and renumbering them 1..K in order of
// first appearance: one writes Body (plain [n] markers), the other Text
// in the reader's style. Both see the same citations in the same order, so
// their numbers agree.
type publisher struct {
	rep               *Report
	draft, body, text strings.Builder
	bodyP, textP      *citeproc.Processor
}

func newPublisher(sources []collapse.Source, style citeproc.Style, hooks Hooks) (*publisher, error) {
	global, err := collapse.Mapping(sources)
	if err != nil {
		return nil, fmt.Errorf("finalreport: %w", err)
	}
	byNumber := make(map[int]collapse.Source, len(sources))
	for _, s := range sources {
		byNumber[s.Number] = s
	}
	p := &publisher{rep: &Report{Sources: sources}}
	p.bodyP = citeproc.New(&p.body, citeproc.Config{
		Mode:     citeproc.Link,
		Style:    citeproc.Plain,
		Mapping:  global,
		Numberer: numberer(sources),
		Hooks: citeproc.Hooks{
			Citation: func(c citeproc.Citation) { cite(&p.rep.References, c, byNumber[c.Number]) },
			Unknown:  hooks.Unknown,
		},
	})
	// Its facts go to the hooks: each comes just before the text that
	// shows it, whatever the chunking; a reference is announced once, at
	// the first unit it is cited at.
	var announced []Reference
	p.textP = citeproc.New(deltaTee{&p.text, hooks.Delta}, citeproc.Config{
		Mode:     citeproc.Link,
		Style:    style,
		Mapping:  global,
		Numberer: numberer(sources),
		Hooks: citeproc.Hooks{Citation: func(c citeproc.Citation) {
			if cite(&announced, c, byNumber[c.Number]) && hooks.Citation != nil {
				hooks.Citation(c.Display, byNumber[c.Number].Source)
			}
		}},
	})
	return p, nil
}

func (p *publisher) write(chunk string) error {
	p.draft.WriteString(chunk)
	if _, err := p.bodyP.WriteString(chunk); err != nil {
		return err
	}
	_, err := p.textP.WriteString(chunk)
	return err
}

func (p *publisher) close() (*Report, error) {
	if err := p.bodyP.Close(); err != nil {
		return nil, fmt.Errorf("finalreport: %w", err)
	}
	if err := p.textP.Close(); err != nil {
		return nil, fmt.Errorf("finalreport: %w", err)
	}
	r := p.rep
	if fixed(r.Sources) {
		// Numbers kept from the run a follow-up follows are not in order
		// of first citation: the list is in number order.
		slices.SortStableFunc(r.References, func(a, b Reference) int { return a.Number - b.Number })
	}
	r.Draft, r.Body, r.Text = p.draft.String(), p.body.String(), p.text.String()
	r.Unknown = p.bodyP.Unknowns()
	r.Used = p.bodyP.Used()
	return r, nil
}

// notes is what a report adds after its text: which research failed,
// and the notices.
func notes(in Input) string {
	note := missingNote(in.Missing)
	for _, n := range in.Notices {
		note += Note(n)
	}
	return note
}

// missingNote says which parts of the plan the report does not cover.
func missingNote(missing []Missing) string {
	if len(missing) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n> **Incomplete research.** ")
	if len(missing) == 1 {
		b.WriteString("One research task failed, so this report does not cover it: ")
	} else {
		fmt.Fprintf(&b, "%d research tasks failed, so this report does not cover them: ", len(missing))
	}
	for i, m := range missing {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "“%s” (%s)", noteText(m.Section), noteText(m.Reason))
	}
	b.WriteString(".\n")
	return b.String()
}

// noteEscaper keeps a failure's text (which may say "index [5] out of
// range") from reading as a citation.
var noteEscaper = strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, "【", `\[`, "】", `\]`, "［", `\[`, "］", `\]`)

func noteText(s string) string { return noteEscaper.Replace(strings.Join(strings.Fields(s), " ")) }

type deltaTee struct {
	sb    *strings.Builder
	delta func(string)
}

func (w deltaTee) Write(p []byte) (int, error) {
	w.sb.Write(p)
	if w.delta != nil {
		w.delta(string(p))
	}
	return len(p), nil
}

// Section is one research task's merged findings, for Findings.
type Section struct {
	Title string
	// Text is the agent's report on the merged numbering; empty when the
	// agent failed.
	Text string
	// Failure is the kind of failure ("error", "timeout", …) of an agent
	// that produced no report; empty when it did not fail.
	Failure string
}

// Findings returns a draft of the agents' merged findings, one section per
// research task, citing the merged numbers. It is what a run keeps when the
// final report could not be written: Publish and the renderers turn it
// into any format, like a writer's draft.
func Findings(question string, sections []Section) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Findings: %s\n", noteText(question))
	for _, sec := range sections {
		fmt.Fprintf(&b, "\n## %s\n\n", noteText(sec.Title))
		if sec.Failure != "" {
			fmt.Fprintf(&b, "> This research task failed (%s).\n", noteText(sec.Failure))
			continue
		}
		b.WriteString(demoteHeadings(strings.TrimSpace(sec.Text)))
		b.WriteString("\n")
	}
	return b.String()
}
