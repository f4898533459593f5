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
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/source"
	"github.com/deepresearch/deepresearch/internal/usage"
)

// Hooks receive the report as it is written. Nil fields are skipped; they
// are called synchronously from Write's goroutine.
type Hooks struct {
	// Delta receives the styled report text as it streams.
	Delta func(text string)
	// Citation is called when reference n is first cited, before the text
	// that cites it is passed to Delta.
	Citation func(n int, src source.Source)
}

// Config configures Write.
type Config struct {
	Model llms.Model
	// Style is how citations are rendered in Report.Text.
	Style citeproc.Style
	Hooks Hooks
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
}

// Reference is one entry of the reference list.
type Reference struct {
	Number int `json:"number"`
	source.Source
	CanonicalURL string `json:"canonical_url,omitempty"`
}

// Report is the published final report.
type Report struct {
	// Body is the report with plain [n] markers numbered 1..K.
	Body string
	// Text is Body with citations rendered in the configured style.
	Text string
	// References are the cited sources, numbered 1..K.
	References []Reference
	// Unknown are numbers the writer cited that were not merged sources;
	// they were dropped from the text.
	Unknown []citeproc.Unknown
	Usage   usage.Usage

	raw     string            // the writer's text (and the missing note), with global numbers
	global  *citeproc.Mapping // the merged sources, by global number
	display map[int]int       // global number → reference number
	keep    bool              // raw is a Body already numbered 1..K
}

// Write asks the model for the final report and publishes it.
func Write(ctx context.Context, cfg Config, in Input) (*Report, error) {
	if cfg.Model == nil {
		return nil, fmt.Errorf("finalreport: no model")
	}
	global, err := collapse.Mapping(in.Sources)
	if err != nil {
		return nil, fmt.Errorf("finalreport: %w", err)
	}
	byNumber := make(map[int]collapse.Source, len(in.Sources))
	for _, s := range in.Sources {
		byNumber[s.Number] = s
	}

	rep := &Report{global: global, display: map[int]int{}}
	var raw, body, text strings.Builder
	bodyP := citeproc.New(&body, citeproc.Config{
		Mode:     citeproc.Link,
		Style:    citeproc.Plain,
		Mapping:  global,
		Numberer: citeproc.FirstCitedNumbers(),
		Hooks: citeproc.Hooks{Citation: func(c citeproc.Citation) {
			src := byNumber[c.Number]
			rep.display[c.Number] = c.Display
			rep.References = append(rep.References, Reference{Number: c.Display, Source: src.Source, CanonicalURL: src.CanonicalURL})
		}},
	})
	// The same text, numbered the same way (the numberer sees the same
	// citations in the same order), rendered in the reader's style. Its
	// facts go to the hooks: each comes just before the text that shows
	// it, whatever the chunking.
	textP := citeproc.New(deltaTee{&text, cfg.Hooks.Delta}, citeproc.Config{
		Mode:     citeproc.Link,
		Style:    cfg.Style,
		Mapping:  global,
		Numberer: citeproc.FirstCitedNumbers(),
		Hooks: citeproc.Hooks{Citation: func(c citeproc.Citation) {
			if cfg.Hooks.Citation != nil {
				cfg.Hooks.Citation(c.Display, byNumber[c.Number].Source)
			}
		}},
	})
	write := func(chunk string) error {
		raw.WriteString(chunk)
		if _, err := bodyP.WriteString(chunk); err != nil {
			return err
		}
		_, err := textP.WriteString(chunk)
		return err
	}

	streamed := false
	resp, err := cfg.Model.GenerateContent(ctx, messages(in),
		llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
			if len(chunk) == 0 {
				return nil
			}
			streamed = true
			return write(string(chunk))
		}))
	if err != nil {
		return nil, fmt.Errorf("finalreport: model: %w", err)
	}
	if len(resp.Choices) == 0 {
		return nil, fmt.Errorf("finalreport: model returned no choices")
	}
	choice := resp.Choices[0]
	if !streamed {
		write(choice.Content)
	}
	if note := missingNote(in.Missing); note != "" {
		if !strings.HasSuffix(raw.String(), "\n") {
			write("\n")
		}
		write(note)
	}
	if err := bodyP.Close(); err != nil {
		return nil, fmt.Errorf("finalreport: %w", err)
	}
	if err := textP.Close(); err != nil {
		return nil, fmt.Errorf("finalreport: %w", err)
	}
	rep.Body, rep.Text, rep.raw = body.String(), text.String(), raw.String()
	rep.Unknown = bodyP.Unknowns()
	rep.Usage = usage.Of(choice)
	return rep, nil
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
