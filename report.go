package deepresearch

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/engine"
	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/source"
	"github.com/deepresearch/deepresearch/worker"
)

// Section is one research task's merged findings.
type Section struct {
	Task events.PlanTask `json:"task"`
	// Text is the agent's report rewritten onto the merged numbering
	// (Report.Sources); empty when the agent failed.
	Text string `json:"text,omitempty"`
	// Failure says why the agent failed; nil when it did not.
	Failure *worker.Failure `json:"failure,omitempty"`
}

// Report is the outcome of a run. It is a plain value: its JSON form
// (json.Marshal) is stable and complete, and LoadReport turns it back into
// a Report that renders byte for byte as the original did.
//
// A run that fails after its agents' research still yields a Report that
// renders, so that no research is lost: when the writer failed, Render
// gives the agents' merged findings, one section per task with its
// citations numbered 1..K and a reference list, in any render.Format (Complete
// reports false); when verification failed, Render gives the final report
// unverified (Verification is nil). Run.Wait returns that Report together
// with its error, and every front end inherits the guarantee: the CLI
// writes the findings where the report would have gone and exits 1, the
// HTTP API serves them at GET /v1/research/{id}?format=…, and the MCP
// research tool returns them marked as an error. A Report with nothing to
// render (the run failed before any agent reported, or was canceled
// during the research) says why in Error, and Render returns ErrNoReport.
type Report struct {
	// Version is render.Version.
	Version  int    `json:"version"`
	RunID    string `json:"run_id"`
	Question string `json:"question"`
	// Style is the citation style of Text (its JSON form is the style's
	// name: "markdown", …).
	Style cite.Style `json:"style"`
	// Clarifications are the clarifying questions the run asked (or was
	// given answers to), with the answers; one without an answer was
	// researched on its assumption, which the report states.
	Clarifications []events.Clarification `json:"clarifications,omitempty"`
	// Draft is the writer's text citing Sources by their merged numbers;
	// Text, Body and References are published from it. Empty when the
	// writer failed: the report then renders the agents' findings.
	Draft string `json:"draft,omitempty"`
	// Text is the final report with citations numbered 1..K and rendered
	// in Style, without the reference list.
	Text string `json:"text"`
	// Body is the final report with plain [n] markers.
	Body string `json:"body"`
	// References are the sources the report cites, numbered 1..K in order
	// of first citation. Every marker in Text resolves to one of them.
	References []render.Reference `json:"references"`
	// Used are the merged numbers (of Sources) the writer named in usage
	// tags ([[USAGE:1,3]]: sources it used, cited inline or not), in
	// order; the structured formats list them as sources_used.
	Used []int `json:"used,omitempty"`
	// Sections are the research tasks with their findings: the plan's, in
	// plan order, each followed by the follow-ups of later cycles that
	// serve it; then follow-ups on the question as a whole.
	Sections []Section `json:"sections"`
	// Sources is the merged numbering of every source the agents cited,
	// the numbering Draft and Sections use.
	Sources []cite.MergedSource `json:"sources"`
	// Usage is every model call the run made through its models — the
	// clarifier's, the planner's and assessments', the agents', the
	// writer's — counted once, as its budgets count them (relevance and
	// verification judges are not counted).
	Usage events.Usage `json:"usage"`
	// DurationMS is the run's wall time in milliseconds; TimingsMS splits
	// it by stage (events.StageIndex, StagePlan, StageResearch, StageMerge,
	// StageAssess, StageReport, StageVerify; a stage not reached is absent;
	// the research, merge and assessment times summed over the cycles).
	DurationMS int64                  `json:"duration_ms"`
	TimingsMS  map[events.Stage]int64 `json:"timings_ms"`
	// Verification is what checking every citation against its source's
	// text found; nil when the run was not verified.
	Verification *Verification `json:"verification,omitempty"`
	// SourceTexts holds, by merged number, the text of each source as the
	// agents read it, so the report can be checked again offline.
	SourceTexts map[int]string `json:"source_texts,omitempty"`
	// Relevance holds, by merged number, what the sources reconciler said
	// of each source when an agent kept it: its relevance to the task
	// (o_relevance), to each of the task's searches (q_relevance) and why
	// (reasoning), as the structured formats' sources_used carry it.
	Relevance map[int]source.Relevance `json:"relevance,omitempty"`
	// Error is why the run failed; empty when it did not.
	Error string `json:"error,omitempty"`
	// Cycles counts the research cycles run; LoopEnd says why the loop
	// stopped (events.LoopAnswered, LoopMaxCycles, …).
	Cycles  int    `json:"cycles,omitempty"`
	LoopEnd string `json:"loop_end,omitempty"`

	// Retries is how many of the run's model calls failed and were tried
	// again (Config.MaxRetries); the structured formats' envelope tells it
	// with ok, finished and reason (seed 001's run contract).
	Retries int `json:"retries,omitempty"`
}

// LoadReport reads a Report from its JSON form. The published parts (Text,
// Body, References) are rebuilt from Draft and Sources, so what it returns
// renders exactly as the report that was stored.
func LoadReport(data []byte) (*Report, error) {
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("deepresearch: load report: %w", err)
	}
	if rep.Version != render.Version {
		return nil, fmt.Errorf("deepresearch: load report: version %d, want %d", rep.Version, render.Version)
	}
	if rep.Draft != "" {
		pub, err := finalreport.Publish(rep.Draft, rep.Sources, rep.Style)
		if err != nil {
			return nil, fmt.Errorf("deepresearch: load report: %w", err)
		}
		rep.Text, rep.Body, rep.References, rep.Used = pub.Text, pub.Body, pub.References, pub.Used
	}
	return &rep, nil
}

// Complete reports whether the final report was written; when it was not,
// the Report renders the agents' merged findings instead.
func (r *Report) Complete() bool { return r.Draft != "" }

// published is the final report for the renderers: the writer's, or when
// the writer failed, the agents' findings published the same way.
func (r *Report) published() (*finalreport.Report, error) {
	if r.Draft != "" {
		return &finalreport.Report{Draft: r.Draft, Sources: r.Sources, Text: r.Text, Body: r.Body, References: r.References, Used: r.Used}, nil
	}
	if !slices.ContainsFunc(r.Sections, func(s Section) bool { return s.Text != "" }) {
		return nil, ErrNoReport // no agent reported: no findings
	}
	secs := make([]finalreport.Section, len(r.Sections))
	for i, s := range r.Sections {
		secs[i] = finalreport.Section{Title: s.Task.Title, Text: s.Text}
		if s.Failure != nil {
			secs[i].Failure = s.Failure.Kind
		}
	}
	return finalreport.Publish(finalreport.Findings(r.Question, secs), r.Sources, r.Style)
}

// Render returns the report in format: render.Markdown ("md", the report
// and its reference list), render.HTML (a standalone page with clickable
// citations), render.JSON (blocks, references, the sources used, stats
// and a citation sidecar; see JSON), render.YAML (the same document as
// YAML, with the same sidecar), render.XML (the same document as XML,
// valid against render.XMLSchema), render.Mermaid (its citation graph:
// the question, its sections and the references each cites, as a
// Mermaid flowchart), render.DOCX (a Word document: the report's
// headings, lists, tables and code, each citation an internal link to
// its entry in the reference list, which gives each source's locators
// and date, and the verification summary; binary), render.PDF (the same,
// printed by a headless Chromium found on PATH: see RenderContext, which
// takes a context and the browser's path; binary), or its reference list
// alone as render.CSL (CSL-JSON, for Zotero, Pandoc and other reference
// managers) or render.BibTeX ("" is render.Markdown; a format that is
// none of the render.Format constants, such as a name render.ParseFormat
// would read as one of them, is an error wrapping render.ErrFormat: parse
// a name once, where it arrives, with render.ParseFormat). When the
// writer failed it renders the agents' merged findings, in the same
// format; with nothing to render it returns ErrNoReport (see Report).
// Every renderer takes the same data, so a report reloaded with
// LoadReport renders the same bytes.
func (r *Report) Render(format render.Format) ([]byte, error) {
	pub, err := r.published()
	if err != nil {
		return nil, fmt.Errorf("deepresearch: render: %w", err)
	}
	title := r.title()
	switch format {
	case "", render.Markdown:
		return []byte(finalreport.Markdown(pub, r.Style)), nil
	case render.HTML:
		page, err := finalreport.HTML(title, pub)
		if err != nil {
			return nil, fmt.Errorf("deepresearch: render: %w", err)
		}
		return []byte(page), nil
	case render.DOCX:
		b, err := finalreport.DOCX(title, pub, r.verified())
		if err != nil {
			return nil, fmt.Errorf("deepresearch: render: %w", err)
		}
		return b, nil
	case render.PDF:
		return r.RenderContext(context.Background(), format, render.Options{})
	case render.CSL, render.BibTeX:
		return render.References(pub.References, format, r.Style)
	case render.JSON, render.YAML, render.XML, render.Mermaid:
		doc, err := r.jsonDocument(pub)
		if err != nil {
			return nil, fmt.Errorf("deepresearch: render: %w", err)
		}
		switch format {
		case render.XML:
			b, err := finalreport.XML(doc)
			if err != nil {
				return nil, fmt.Errorf("deepresearch: render: %w", err)
			}
			return b, nil
		case render.Mermaid:
			return []byte(finalreport.Mermaid(doc)), nil
		}
		if format == render.YAML {
			b, err := finalreport.YAML(doc)
			if err != nil {
				return nil, fmt.Errorf("deepresearch: render: %w", err)
			}
			return b, nil
		}
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("deepresearch: render: %w", err)
		}
		return append(b, '\n'), nil
	}
	return nil, fmt.Errorf("deepresearch: render: %w %q: not a render.Format constant (render.ParseFormat reads a format's name)", render.ErrFormat, format)
}

// title is the report's title: the question, or when the writer failed
// "Findings: " and the question.
func (r *Report) title() string {
	if r.Draft == "" {
		return "Findings: " + r.Question
	}
	return r.Question
}

// Markdown returns the report with its reference list ("" when there is
// nothing to render).
func (r *Report) Markdown() string {
	b, _ := r.Render(render.Markdown)
	return string(b)
}

// HTML returns the report as a standalone HTML page with clickable
// citations and a reference list.
func (r *Report) HTML() (string, error) {
	b, err := r.Render(render.HTML)
	return string(b), err
}

// JSON returns the report as structured data: its blocks, its references
// and a citation sidecar of JSON Pointers to the blocks with the reference
// numbers each cites; around them, the sources it used (sources_used:
// sid, url, title, an excerpt of the text the agents read, kind and
// dates; with the sids the writer's usage tags named), the collections
// and kinds of its references, and stats (the research cycles, the
// text's bytes, whether it cites anything, what verification found).
func (r *Report) JSON() (*render.Document, error) {
	pub, err := r.published()
	if err != nil {
		return nil, fmt.Errorf("deepresearch: render: %w", err)
	}
	return r.jsonDocument(pub)
}

// jsonDocument is the JSON form of pub, the published report: its run's
// ID, and with each reference the hash of the text read of it and the
// passages its citations were checked against (Verification.Passages),
// so that `deepresearch verify --sources report.json` checks the report
// again with no other input.
func (r *Report) jsonDocument(pub *finalreport.Report) (*render.Document, error) {
	doc, err := finalreport.JSON(r.Question, pub, r.extra())
	if err != nil {
		return nil, err
	}
	doc.RunID = r.RunID
	byKey := map[string]int{}
	for _, s := range r.Sources {
		byKey[s.ID+"\x00"+s.URL+"\x00"+s.Location.Key()] = s.Number
	}
	var kept map[int][]source.Passage
	if r.Verification != nil {
		kept = make(map[int][]source.Passage, len(r.Verification.Passages))
		for _, sp := range r.Verification.Passages {
			kept[sp.Source] = sp.Passages
		}
	}
	// The references are the published report's: copied, not changed in
	// place.
	doc.References = slices.Clone(doc.References)
	for i := range doc.References {
		ref := &doc.References[i]
		n, ok := byKey[ref.ID+"\x00"+ref.URL+"\x00"+ref.Location.Key()]
		if text := r.SourceTexts[n]; ok && text != "" {
			ref.Checked = &render.Checked{TextSHA256: sourcetext.SHA256(text), Passages: kept[n]}
		}
	}
	return doc, nil
}

// verified is what a document tells of the report's verification; nil
// when the run was not verified.
func (r *Report) verified() *finalreport.Verified {
	v := r.Verification
	if v == nil {
		return nil
	}
	return &finalreport.Verified{Summary: v.Summary, Problems: v.Problems, Action: string(v.Action), Judge: v.Judge}
}

// take puts a run's research (engine.Run's result) into rep, once: the
// merged sources, the sections in report order, the cycles and why they
// ended, the stages' timings; and, when the report was written, the
// published report and the texts read of its sources.
func (rep *Report) take(res engine.Result) {
	rep.Sources = res.Sources
	for _, s := range res.Sections {
		rep.Sections = append(rep.Sections, Section{Task: s.Task, Text: s.Text, Failure: s.Failure})
	}
	rep.Cycles, rep.LoopEnd = res.Cycles, res.End
	for stage, ms := range res.Timings {
		rep.TimingsMS[stage] += ms
	}
	if f := res.Final; f != nil {
		rep.Draft, rep.Text, rep.Body, rep.References, rep.Used = f.Draft, f.Text, f.Body, f.References, f.Used
		rep.SourceTexts, rep.Relevance = res.SourceTexts, res.Relevance
	}
}

// extra is what the structured formats tell of the run beyond its report.
func (r *Report) extra() finalreport.Extra {
	x := finalreport.Extra{Texts: r.SourceTexts, Relevance: r.Relevance, Rounds: r.Cycles,
		Unfinished: r.Draft == "", Reason: r.Error, Retries: r.Retries}
	switch v := r.Verification; {
	case v == nil:
		x.Validated = render.ValidatedNone
	case v.Pass(false):
		x.Validated = render.ValidatedPassed
	default:
		x.Validated = render.ValidatedFailed
	}
	return x
}

// Cited returns the reference list of what Render renders: References,
// or when the writer failed, the findings' own, numbered 1..K in order of
// first citation. With nothing to render it returns ErrNoReport.
func (r *Report) Cited() ([]render.Reference, error) {
	pub, err := r.published()
	if err != nil {
		return nil, fmt.Errorf("deepresearch: render: %w", err)
	}
	return pub.References, nil
}

// Provenance is seed 003's account of the sources the report cites: its
// JSON form's sources, collections_used, source_types, citation_format
// and formatted_citations.
func (r *Report) Provenance() (render.Provenance, error) {
	refs, err := r.Cited()
	if err != nil {
		return render.Provenance{}, err
	}
	return render.ProvenanceOf(refs), nil
}

// Findings returns the agents' merged findings as markdown, one section per
// research task, with citations renumbered 1..K and a reference list,
// whether or not the final report was written.
func (r *Report) Findings() (string, error) {
	c := *r
	c.Draft = ""
	b, err := c.Render(render.Markdown)
	return string(b), err
}
