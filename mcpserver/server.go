// Package mcpserver serves deepresearch's citation machinery over the Model
// Context Protocol (github.com/modelcontextprotocol/go-sdk), so that Claude
// Code, Cursor and other MCP clients can use it:
//
//   - citation_create, citation_add, citation_merge, citation_export: the
//     citation index (a cite.Merger: a stable number per canonical
//     URL, first seen wins, as a run numbers its agents' sources; indexes
//     merge; the reference list exports as a report's reference list,
//     CSL-JSON or BibTeX);
//   - verify: a report's citations checked against its sources
//     (verify.Verify);
//   - research: a deepresearch.Request run through the library, answered
//     with the cited report (when Options.Runs or Research is set): with
//     Runs, a run kept in its store under its policy (run limits, time
//     limits, plan review with its timeout), as the HTTP API's runs are.
//
// It is a front end: every decision is the library's, including what a
// failed run still gives (deepresearch.Report). `deepresearch mcp` serves
// New's server on stdio; an application that serves MCP itself adds the
// tools to its own server with AddTools.
//
// The indexes live in memory, per server, bounded by Options.MaxIndexes
// and MaxEntries; the tools are safe for concurrent calls. Everything a
// client sends is untrusted: URLs are canonicalised (malformed ones are
// refused), strings are stripped of control characters and bounded.
package mcpserver

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/verify"
)

// Report is what the research tool returns.
type Report struct {
	// RunID names the run in the store that keeps it (Options.Runs):
	// GET /v1/research/{id} and `deepresearch show ID` find it there, and
	// the ask tool takes it to follow the report up. Empty when runs are
	// not kept.
	RunID string `json:"run_id,omitempty" jsonschema:"the run's ID in the run store, when runs are kept: ask follows it up"`
	// Markdown is the cited report with its reference list; when the run
	// failed after its research, what of it renders (the agents' merged
	// findings when the writer failed).
	Markdown   string      `json:"markdown" jsonschema:"the cited report in markdown, with its reference list"`
	References []Reference `json:"references" jsonschema:"the sources the report cites, by number"`
	// Provenance is seed 003's account of References.
	render.Provenance
	// Complete is false when Markdown holds the agents' findings instead
	// of a written report.
	Complete bool `json:"complete" jsonschema:"false when the writer failed and markdown holds the agents' merged findings"`
	// Error is why the run failed; empty when it did not.
	Error string `json:"error,omitempty" jsonschema:"why the run failed, when it did"`
	// Questions are the clarifying questions of a question that needs
	// them, asked of a client without elicitation: nothing was researched;
	// call research again with "answers".
	Questions []events.Clarification `json:"questions,omitempty" jsonschema:"clarifying questions: nothing was researched; call research again with answers"`
	// Estimate is what the run would spend, for a call with "estimate":
	// true: nothing was researched.
	Estimate *deepresearch.Estimate `json:"estimate,omitempty" jsonschema:"what the run would spend (asked with estimate: true): nothing was researched"`
}

// Reference is one source of a research report.
type Reference struct {
	Number int    `json:"number"`
	Title  string `json:"title,omitempty"`
	URL    string `json:"url,omitempty"`
	// Label is the reference as the report's list names it, with its
	// locations: "mime-spec.pdf, pp. 4, 7".
	Label string `json:"label,omitempty" jsonschema:"the reference as the report's list names it, with the pages, rows or slides cited"`
	// Locations are the pages, rows or slides of the document the report
	// cites ("p. 4", "row 3"), as its citations' locators ("[1, p. 4]")
	// say them; none for a whole document or a web page.
	Locations []string `json:"locations,omitempty" jsonschema:"the pages, rows or slides cited (p. 4, row 3), as the citations' locators say them"`
}

// Researcher is what the research tool needs of the library to run a
// request that is not kept (Options.Research): *deepresearch.Researcher
// is one. Its runs must end when ctx is done.
type Researcher interface {
	Start(ctx context.Context, req deepresearch.Request, opts deepresearch.RunOptions) (*deepresearch.Run, error)
}

var _ Researcher = (*deepresearch.Researcher)(nil)

// Options configure the server. Zero values take the defaults.
type Options struct {
	// Name and Version identify the server to clients; "deepresearch" and
	// by default the version the binary was built as (its module version,
	// else its commit, else "dev").
	Name, Version string
	// Runs, if set, runs the research tool's requests as runs it keeps
	// and governs, as it does the HTTP API's: a request beyond its
	// MaxRuns is a tool error, a run has its time limit, and a client
	// that takes elicitation is asked to review the plan of a request
	// that wants it reviewed (a form: accept or reject; the call comes
	// back with the answer), the run waiting at most the Runs'
	// ReviewTimeout. A client that cannot review gets no review. A call
	// the client cancels cancels its run.
	Runs *deepresearch.Runs
	// Research answers the research tool when Runs is nil, with runs that
	// are not kept; both nil leave the tool out.
	Research Researcher
	// MaxIndexes bounds the citation indexes a session may create (default
	// 256); MaxEntries the sources of one index (default 1000: an export
	// of that many sources at the bounds below is 7 MiB, and a client
	// reads at most 16 MiB of one message);
	// MaxSections the sections an entry records (default 32: a citation
	// in one more is numbered, its section not recorded). URLs are at
	// most 2048 bytes, titles kept to 500.
	MaxIndexes, MaxEntries, MaxSections int
	// VerifyModel judges support for the verify tool (as
	// verify.Options.Model); nil judges lexically.
	VerifyModel llms.Model
	// Files is the project the verify tool checks file references and
	// @-mentions against (verify.Options.Files: an os.Root's
	// FS, which no path leaves); nil reports them unchecked.
	Files fs.FS
}

// New returns a server with the tools registered (AddTools). Run it with
// server.Run(ctx, transport), e.g. &mcp.StdioTransport{}.
func New(opts Options) *mcp.Server {
	if opts.Name == "" {
		opts.Name = "deepresearch"
	}
	if opts.Version == "" {
		opts.Version = buildVersion()
	}
	s := mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{
		Instructions: "Citation tools: create a citation index, add each source's URL as you collect evidence " +
			"(the same resource always gets the same number), merge indexes of parallel subtasks, export the " +
			"reference list, and verify a report's citations against the sources' text." +
			map[bool]string{true: " research runs a question and returns a cited report.", false: ""}[opts.Research != nil || opts.Runs != nil],
	})
	AddTools(s, opts)
	s.AddReceivingMiddleware(rpcCodes)
	return s
}

// rpcCodes gives every error a request's handling ends in a JSON-RPC
// code: the SDK sends an error of its own without one (code 0) — a
// client's answer to the clarifying form (elicitation/create, which the
// SDK asks on the tool call's behalf) that is not an elicitation result,
// say. An answer of the client's that cannot be decoded is the client's
// invalid params (-32602); any other such error is internal (-32603).
func rpcCodes(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var rpc *jsonrpc.Error
		if err == nil || errors.As(err, &rpc) || ctx.Err() != nil {
			return res, err
		}
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if errors.As(err, &syntax) || errors.As(err, &typ) {
			return res, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the client's answer to a request of the server's is malformed: " + err.Error()}
		}
		return res, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
}

// AddTools registers the tools on s, an MCP server of the caller's own
// (opts.Name and Version are s's to say): an application that already
// serves MCP offers deepresearch's tools beside its own. The tools share
// one set of citation indexes, bounded by opts.MaxIndexes and MaxEntries.
func AddTools(s *mcp.Server, opts Options) { addToolsFor(s, opts) }

// addToolsFor is AddTools, returning the tools' state.
func addToolsFor(s *mcp.Server, opts Options) *tools {
	if opts.MaxIndexes <= 0 {
		opts.MaxIndexes = 256
	}
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = 1000
	}
	if opts.MaxSections <= 0 {
		opts.MaxSections = 32
	}
	t := &tools{ix: newIndexes(opts.MaxIndexes, opts.MaxEntries, opts.MaxSections), research: opts.Research, runs: opts.Runs,
		key: make([]byte, 32), verifyModel: opts.VerifyModel, files: opts.Files}
	rand.Read(t.key)
	mcp.AddTool(s, &mcp.Tool{Name: "citation_create",
		Description: "Create an empty citation index for a research session; returns its index_id."}, t.create)
	mcp.AddTool(s, &mcp.Tool{Name: "citation_add",
		Description: "Add a source's URL to a citation index and get its stable citation number. Idempotent: the same " +
			"resource (same canonical URL: tracking parameters, www., http/https, fragments, arXiv versions… ignored) " +
			"always gets the same number."}, t.add)
	mcp.AddTool(s, &mcp.Tool{Name: "citation_merge",
		Description: "Merge citation index source_id into target_id (first seen wins; target's numbers never change). " +
			"Returns how source's numbers map to target's, to rewrite source's [n] markers."}, t.merge)
	mcp.AddTool(s, &mcp.Tool{Name: "citation_list",
		Description: "List a citation index's sources in number order, with the number the next new source will get (next_number)."}, t.list)
	mcp.AddTool(s, &mcp.Tool{Name: "citation_export",
		Description: "Export a citation index's reference list: markdown (one line per source, \"[1] Title — source (URL)\"; " +
			"an untitled source shows its URL as its title), csl-json or bibtex; with next_number."}, t.export)
	mcp.AddTool(s, &mcp.Tool{Name: "verify",
		Description: "Verify a markdown report's citations against its sources: fabricated citations (numbers with no " +
			"source, sources with no text), unsupported sentences (with the best-matching passage as evidence), " +
			"duplicate sources, DOIs, author-year references, REF-123 identifiers, @-mentions of files and file " +
			"references [path@hash, L10-20]; statistics in sentences that cite nothing, and overclaiming (certainty " +
			"language on weak or single-source support, with a suggested hedge). The report is text (or markdown, " +
			"as research returns it), or a JSON report (report: its text and its _citations sidecar, or another's " +
			"document whose sidecar lists its claims). Returns counts, score, each problem " +
			"with its line and a suggested fix, and PASS/FAIL."}, t.verify)
	if opts.Research != nil || opts.Runs != nil {
		mcp.AddTool(s, &mcp.Tool{Name: "research",
			Description: "Research a question over the configured corpus and return a report whose every citation " +
				"resolves to a retrieved source. When the run fails after its research, the result is an error " +
				"that still carries what was found (the agents' merged findings when the writer failed)."}, t.runResearch)
	}
	if opts.Runs != nil {
		mcp.AddTool(s, &mcp.Tool{Name: "ask",
			Description: "Ask a follow-up question about a finished research run's report (run_id, from research). " +
				"The answer is written from the run's own sources first, citing them by the report's numbers; only " +
				"when they do not hold the answer is one more cycle of research done, its new sources numbered after " +
				"the report's. Returns the answer as research returns a report, with the follow-up's own run_id."}, t.ask)
	}
	return t
}

type tools struct {
	ix       *indexes
	research Researcher
	runs     *deepresearch.Runs
	// key signs the request state of a call that asks for a plan's
	// review (reviewState).
	key         []byte
	verifyModel llms.Model
	files       fs.FS
}

type createIn struct{}

type createOut struct {
	IndexID string `json:"index_id" jsonschema:"the new index's id"`
}

func (t *tools) create(ctx context.Context, _ *mcp.CallToolRequest, _ createIn) (*mcp.CallToolResult, createOut, error) {
	id, err := t.ix.create()
	return nil, createOut{IndexID: id}, err
}

type addIn struct {
	IndexID string `json:"index_id" jsonschema:"the index, from citation_create"`
	URL     string `json:"url" jsonschema:"the source's URL"`
	Title   string `json:"title,omitempty" jsonschema:"the source's title"`
	Source  string `json:"source,omitempty" jsonschema:"the channel that found it, e.g. arxiv, github, web"`
	Section string `json:"section,omitempty" jsonschema:"the report section citing it"`
}

type addOut struct {
	CitationNumber int    `json:"citation_number" jsonschema:"the stable number to cite the source by"`
	CanonicalURL   string `json:"canonical_url"`
	New            bool   `json:"new" jsonschema:"whether the source was new to the index"`
}

func (t *tools) add(ctx context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
	e, isNew, err := t.ix.add(in.IndexID, in.URL, in.Title, in.Source, in.Section)
	if err != nil {
		return nil, addOut{}, err
	}
	return nil, addOut{CitationNumber: e.Number, CanonicalURL: e.CanonicalURL, New: isNew}, nil
}

type mergeIn struct {
	TargetID string `json:"target_id" jsonschema:"the index that receives the sources"`
	SourceID string `json:"source_id" jsonschema:"the index whose sources are added (left unchanged)"`
}

type renumbering struct {
	From int `json:"from" jsonschema:"the number in the source index"`
	To   int `json:"to" jsonschema:"its number in the target index"`
}

type mergeOut struct {
	Added    int           `json:"added" jsonschema:"sources new to the target"`
	Renumber []renumbering `json:"renumber" jsonschema:"every source index number and its target number"`
}

func (t *tools) merge(ctx context.Context, _ *mcp.CallToolRequest, in mergeIn) (*mcp.CallToolResult, mergeOut, error) {
	m, added, err := t.ix.merge(in.TargetID, in.SourceID)
	if err != nil {
		return nil, mergeOut{}, err
	}
	out := mergeOut{Added: added, Renumber: []renumbering{}}
	for from := 1; from <= len(m); from++ {
		out.Renumber = append(out.Renumber, renumbering{From: from, To: m[from]})
	}
	return nil, out, nil
}

type exportIn struct {
	IndexID string `json:"index_id"`
	Format  string `json:"format,omitempty" jsonschema:"markdown (default), csl-json or bibtex"`
}

type exportOut struct {
	Markdown string  `json:"markdown,omitempty" jsonschema:"the reference list, one line per source: [n] Title — source (URL)"`
	CSLJSON  string  `json:"csl_json,omitempty" jsonschema:"the reference list as a CSL-JSON array"`
	BibTeX   string  `json:"bibtex,omitempty" jsonschema:"the reference list as BibTeX entries"`
	Entries  []entry `json:"entries" jsonschema:"the index's sources in number order"`
	// NextNumber is the number the next new source will get (the seed's
	// next_number).
	NextNumber int `json:"next_number" jsonschema:"the number the next new source will get"`
}

type listIn struct {
	IndexID string `json:"index_id" jsonschema:"the index, from citation_create"`
}

type listOut struct {
	Entries    []entry `json:"entries" jsonschema:"the index's sources in number order"`
	NextNumber int     `json:"next_number" jsonschema:"the number the next new source will get"`
}

func (t *tools) list(ctx context.Context, _ *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, listOut, error) {
	es, err := t.ix.export(in.IndexID)
	if err != nil {
		return nil, listOut{}, err
	}
	return nil, listOut{Entries: es, NextNumber: nextNumber(es)}, nil
}

// nextNumber is the number an index whose entries are es gives the next
// new source: numbers run 1..len(es), none skipped.
func nextNumber(es []entry) int { return len(es) + 1 }

func (t *tools) export(ctx context.Context, _ *mcp.CallToolRequest, in exportIn) (*mcp.CallToolResult, exportOut, error) {
	es, err := t.ix.export(in.IndexID)
	if err != nil {
		return nil, exportOut{}, err
	}
	out := exportOut{Entries: es, NextNumber: nextNumber(es)}
	format, err := render.ParseFormat(in.Format)
	if err != nil || format != render.Markdown && format != render.CSL && format != render.BibTeX {
		return nil, exportOut{}, fmt.Errorf("%w: format %q: want markdown, csl-json or bibtex", ErrBadArgument, text(in.Format, 40))
	}
	var list string
	switch format {
	case render.Markdown:
		list = render.ReferenceIndex(references(es))
		out.Markdown = list
	default:
		b, err := render.References(references(es), format, cite.Markdown)
		if err != nil {
			return nil, exportOut{}, err
		}
		list = string(b)
		if format == render.CSL {
			out.CSLJSON = list
		} else {
			out.BibTeX = list
		}
	}
	// The text content is the list itself (not the structured content's
	// JSON again): what a client shows, and one copy fewer of a large
	// index.
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: list}}}, out, nil
}

type verifyIn struct {
	Text string `json:"text,omitempty" jsonschema:"the markdown report to check (or markdown, or report)"`
	// Markdown is Text under the name the research tool returns it by.
	Markdown string `json:"markdown,omitempty" jsonschema:"the markdown report to check, as the research tool returns it (the same as text)"`
	// Report is a JSON report (run --format json, or another's document
	// with a _citations sidecar): its sidecar is checked, and its text
	// (or its sidecar's claims) verified.
	Report  string          `json:"report,omitempty" jsonschema:"a JSON report to check instead: deepresearch's (--format json: its text and its _citations sidecar) or another's document whose _citations sidecar lists its claims"`
	Sources []verify.Source `json:"sources,omitempty" jsonschema:"the sources: number, title, url and the text that was retrieved (no text: never retrieved), or the passages checked (a JSON report's references); grade (HIGH, MODERATE, LOW, VERY LOW) or type to weigh overclaiming; ref for REF-123 identifiers. Absent: numbered citations are not checked"`
	Strict  bool            `json:"strict,omitempty" jsonschema:"fail on warnings (unsupported sentences, duplicates, overclaims, uncited statistics) too"`
	Fix     bool            `json:"fix,omitempty" jsonschema:"also return the report fixed: citations of nonexistent or never-retrieved sources removed with a comment saying why, notes on stale and missing files, TODO markers on claims needing a source, overclaims hedged"`
	Scope   string          `json:"scope,omitempty" jsonschema:"what to check: all (the default), citations (no prose checks), corpus (numbered citations, @-mentions and REF identifiers) or rlm (file references only)"`
	Uncited bool            `json:"uncited,omitempty" jsonschema:"also report every factual sentence that cites nothing"`
}

type verifyOut struct {
	Verdict   string            `json:"verdict" jsonschema:"PASS or FAIL"`
	Summary   verify.Summary    `json:"summary"`
	Problems  []verify.Problem  `json:"problems" jsonschema:"each problem with its line and a suggested fix"`
	Citations []verify.Citation `json:"citations" jsonschema:"every citation with its verdict, score and evidence"`
	Fixed     string            `json:"fixed,omitempty" jsonschema:"the fixed report, when fix was asked"`
	// Sidecar and Note are a JSON report's: what checking its citation
	// sidecar found, and what was verified of it.
	Sidecar []verify.SidecarProblem `json:"sidecar,omitempty" jsonschema:"a JSON report's citation sidecar problems (a FAIL)"`
	Note    string                  `json:"note,omitempty" jsonschema:"what of a JSON report was verified"`
}

func (t *tools) verify(ctx context.Context, _ *mcp.CallToolRequest, in verifyIn) (*mcp.CallToolResult, verifyOut, error) {
	// A fix removes citations of sources that do not exist or were never
	// retrieved, and keeps unsupported ones (the result lists them).
	opts := verify.Options{Model: t.verifyModel, Fix: in.Fix, Unsupported: verify.Keep,
		Files: t.files, Scope: verify.Scope(in.Scope), Uncited: in.Uncited, NoSources: in.Sources == nil}
	text, given := in.Text, 0
	for _, s := range []string{in.Text, in.Markdown, in.Report} {
		if s != "" {
			given++
		}
	}
	if given == 0 {
		return nil, verifyOut{}, fmt.Errorf("%w: give the report to check: text, markdown or report", ErrBadArgument)
	}
	if given > 1 {
		return nil, verifyOut{}, fmt.Errorf("%w: give the report once: as text, markdown or report", ErrBadArgument)
	}
	var out verifyOut
	switch {
	case in.Markdown != "":
		text = in.Markdown
	case in.Report != "":
		if in.Fix {
			return nil, verifyOut{}, fmt.Errorf("%w: fix rewrites markdown reports, not JSON ones", ErrBadArgument)
		}
		var fromSidecar bool
		var err error
		if text, fromSidecar, out.Sidecar, err = verify.JSONReportText([]byte(in.Report)); err != nil {
			return nil, verifyOut{}, fmt.Errorf("%w: report: %v", ErrBadArgument, err)
		}
		out.Note = "checked: the report's text and its citation sidecar"
		if fromSidecar {
			out.Note = "checked: the claims of its sidecar (_citations), one a line: line n is entry n-1"
		}
	}
	res, err := verify.Verify(ctx, text, in.Sources, opts)
	if err != nil {
		return nil, verifyOut{}, err
	}
	out.Verdict, out.Summary, out.Problems, out.Citations = "FAIL", res.Summary, res.Problems, res.Citations
	if res.Pass(in.Strict) && len(out.Sidecar) == 0 {
		out.Verdict = "PASS"
	}
	if in.Fix {
		out.Fixed = res.Fixed
	}
	var b strings.Builder
	if out.Note != "" {
		b.WriteString(out.Note + "\n")
	}
	for _, p := range out.Sidecar {
		fmt.Fprintf(&b, "sidecar %s: %s\n", cmp.Or(p.Path, "(the sidecar)"), p.Message)
	}
	if err := res.WriteText(&b, in.Strict); err != nil {
		return nil, verifyOut{}, err
	}
	if len(out.Sidecar) > 0 && out.Verdict == "FAIL" && res.Pass(in.Strict) {
		b.WriteString("FAIL: the citation sidecar does not match the report\n")
	}
	// The text content is the people's form; the structured content the
	// programs' form.
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, out, nil
}
