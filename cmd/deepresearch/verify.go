package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	yaml "go.yaml.in/yaml/v3"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/sqlitestore"
	"github.com/deepresearch/deepresearch/verify"
)

func init() { extraCommands = append(extraCommands, newVerifyCmd) }

type verifyFlags struct {
	sources     string
	corpus      string
	root        string
	run         string
	store       string
	json        bool
	strict      bool
	fix         bool
	unsupported string
	threshold   float64
	output      string
	report      string
	uncited     bool
	rlm         bool
	corpusOnly  bool
	refetch     bool
}

// errVerifyFailed is the FAIL verdict (exit status 1).
var errVerifyFailed = errors.New("the report failed verification")

func newVerifyCmd() *cobra.Command {
	var vf verifyFlags
	cmd := &cobra.Command{
		Use:   "verify [--sources SOURCES | --run ID] [REPORT.md]",
		Short: "Check a report's citations against its sources",
		Long: `verify checks every citation of a markdown report ("-" reads stdin; no
REPORT checks every .md file under the current folder): does the cited number
have a source, was that source really retrieved (a source with no text, or a
number not among the sources, is fabricated), and does the source support the
sentence that cites it (a lexical support score, with the source's
best-matching passage as evidence). Citation markers of every form cite
reads ([1], [[S:1]], <sup class="cite" data-sids="1">[S:1]</sup>, …) are
taken out of the sentence before it is judged. A quotation (between
quotation marks, or a block quote) must be in the cited source, blanks,
curly quotes, the case of its first letter and elisions (…) aside: one that
is not is a misquote (an error); one that is, or a sentence that copies the
source's words, is supported. Figures are compared with the source's after
normalising (1,499 = 1499.0 = 1.499k = $1,499; 15% = 15 percent;
2024-03-05 = March 5, 2024; 64GB = 64 gigabytes): a figure the source does
not state is a "number" problem ("number not in [1]: 2,999; the source says
1499.0"), and a name the source never names makes a sentence unsupported. A
page, row or slide the source does not have ([2, row 99] of a 3-row CSV) is
a bad-locator error. A reference section ("## References", "Notes",
"Sources", …) lists sources only at the end of the report: a report titled
"Notes" is prose, and its citations are checked. Two numbers whose sources
have the same canonical URL are reported as duplicates.

It also checks, against the sources: DOIs (10.1234/abc; a malformed one such
as 10.12/x is reported), author-year references ("Smith et al., 2020",
"Jones and Lee (2018)", "(Brown, 2017)") and REF-123 identifiers (a source's
"ref" in its front matter or JSON, or its file name). Against the files under
--root: @-mentions (@docs/research/x.md: MISSING when no such file) and file
references [path, L10-20] / [path@hash, L10-20] / [src/path.py] (a path with
a folder and an extension; MISSING; STALE by content
hash, the first 16 hex digits of the file's SHA-256; UN-VERSIONED without a
hash; FRESH), listed in an "RLM Citations" section.

And the prose: a statistic (a percentage, a sum of money, a count such as
"3 million" or "12,000", "2.5x faster") in a sentence that cites nothing;
with --uncited every factual sentence that cites nothing; and overclaiming:
certainty language ("proves", "definitively", "always", "all studies", …) on
a claim that cites no source, only sources graded LOW, or a single source not
graded HIGH (whose passage does not say it as certainly), with a suggested
hedge. A source's grade is its "grade" (HIGH, MODERATE, LOW, VERY LOW, from a
document's front matter or the JSON), else its "type" (systematic-review HIGH,
documentation MODERATE, blog LOW, …).

SOURCES is a JSON list [{"number", "title", "url", "text"}], a JSON report of
"deepresearch run --format json" (its references carry the passages each
citation was checked against, with their SHA-256, and its run_id: when the
run store holds that run, the texts its agents read are used), or a folder of
documents (.md .txt .html …), numbered by a leading number in their names
("3-intro.md") when all have one, else 1..N in path order. --run ID checks
against a stored run instead (and, with no REPORT, the run's own report).
Without either, numbered citations go unchecked (a warning) and the rest is
checked.

REPORT.md may also be a JSON report ("run --format json"): its citation
sidecar ("_citations") is checked too (every path a JSON Pointer to a string
that cites exactly the listed reference numbers), and its "text" verified.
Another's JSON document with a sidecar and no "text" (the citation
protocol's JSON form) is verified by its sidecar, which is authoritative:
each entry's string is a claim citing its sids, inline markers optional.
A .yaml or .yml file is read as a YAML report ("run --format yaml") the same
way, and --sources takes a YAML report as it takes a JSON one.

--corpus DIR fills in the text of each source whose URL is a file: URL inside
DIR (read through DIR only; HTML reduced to its text).

--corpus-only checks only numbered citations, @-mentions and REF identifiers;
--rlm only file references (no sources needed).

Output: a summary table, the RLM section, each problem with its line and a
suggested fix, and PASS or FAIL (--json: the whole result as JSON; --report
FILE saves it too; a bare --report, last or before another flag, saves it to
.aiwg/reports/citation-verification.md, .json with --json). Errors
(fabricated citations, misquotes, pages or rows the source does not have,
missing files, unknown REF identifiers, edited passages) fail; warnings
(unsupported sentences, figures not in the source,
duplicates, stale or unversioned files, unmatched DOIs, uncited statistics,
overclaims) fail only with --strict.

--refetch REPORT.json reads the JSON report's cited web pages again and
compares them with the text_sha256 and passages its references keep, as
'deepresearch recheck RUN' does for a stored run: each source UNCHANGED,
CHANGED (the passages that moved or went), GONE (404, 410, a redirect to
other text), UNREACHABLE or SKIPPED, and the claims whose every source
changed or went (exit status 1 when there is one).

--fix writes the report fixed, annotated rather than silently cut: a citation
of a source that does not exist or was never retrieved is removed and leaves
an HTML comment saying why; --unsupported flag|remove also acts on unsupported
ones (keep, the default, leaves them); a stale file reference gets
[STALE: hash mismatch], an @-mention of a missing file [MISSING: no such
file], an unmatched DOI, author-year or REF [TODO: verify source], a sentence
needing a source [TODO: cite a source]; an overclaim's words are hedged, with
a comment. The fixed report goes to stdout (the summary then to stderr) or
--output; with no REPORT, each file that changed is rewritten in place. The
verdict is the report's as given, before the fix.

A report of at most 16 MiB is read (as cite reads), with at most 250000
citation markers; the sources it cites may hold 16 MiB of text in all.

Exit status: 0 PASS, 1 FAIL, 2 bad input.`,
		Example: `  deepresearch run --format json "Why do goroutines leak?" > run.json
  jq -r .text run.json > report.md
  deepresearch verify --sources run.json report.md
  deepresearch verify --sources ./docs --strict --json report.md
  deepresearch verify --sources refs.json --fix -o fixed.md report.md
  deepresearch verify --sources research/sources --uncited --report verification.md
  deepresearch verify --rlm --strict notes.md`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageError{fmt.Errorf("verify takes one report file (or -, or none for every .md file under the current folder), got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			path := ""
			if len(args) == 1 {
				path = args[0]
			}
			return runVerify(cmd, vf, path)
		},
	}
	f := cmd.Flags()
	f.StringVar(&vf.sources, "sources", "", "the `SOURCES`: a JSON list of sources, a JSON report, or a folder of documents")
	f.StringVar(&vf.corpus, "corpus", "", "fill in the text of sources whose file: URL lies in the folder `DIR` (a run's corpus)")
	f.StringVar(&vf.root, "root", "", "project folder `DIR` that file references and @-mentions are relative to (default: the current folder)")
	f.StringVar(&vf.run, "run", "", "check against the stored run `ID`: its sources, with the text its agents read")
	f.StringVar(&vf.store, "store", "", "the run store `FILE`, for --run and a JSON report's run_id (default: store.path's default)")
	f.BoolVar(&vf.json, "json", false, "print the result as JSON")
	f.BoolVar(&vf.strict, "strict", false, "fail on warnings too")
	f.BoolVar(&vf.fix, "fix", false, "write the report fixed and annotated")
	f.StringVar(&vf.unsupported, "unsupported", "keep", "with --fix, the `ACTION` on unsupported citations: keep, flag or remove")
	f.Float64Var(&vf.threshold, "threshold", verify.DefaultThreshold, "lexical support `SCORE` from which a sentence is supported")
	f.StringVarP(&vf.output, "output", "o", "", "with --fix: write the fixed report to `FILE` (atomically)")
	f.StringVar(&vf.report, "report", "", "save the verification report (text, or JSON with --json) to `FILE` too; bare --report (last, or before another flag): "+defaultReportPath)
	f.BoolVar(&vf.uncited, "uncited", false, "report every factual sentence that cites nothing")
	f.BoolVar(&vf.rlm, "rlm", false, "check file references only ([path@hash, L10-20]); no sources needed")
	f.BoolVar(&vf.corpusOnly, "corpus-only", false, "check only numbered citations, @-mentions and REF identifiers")
	f.BoolVar(&vf.refetch, "refetch", false, "read the JSON report's cited web pages again and say whether it still holds (see 'deepresearch recheck')")
	return cmd
}

// verified is one report checked: its name, the result, and its JSON
// sidecar's problems.
type verified struct {
	name    string
	text    string // the markdown checked
	res     *verify.Result
	sidecar []verify.SidecarProblem
	// note says what was checked when it is not the text as given: the
	// claims of another's JSON document's sidecar.
	note string
}

func (v *verified) pass(strict bool) bool { return v.res.Pass(strict) && len(v.sidecar) == 0 }

func runVerify(cmd *cobra.Command, vf verifyFlags, reportPath string) error {
	if vf.refetch {
		return refetch(cmd, vf, reportPath)
	}
	switch {
	case vf.run != "" && vf.sources != "":
		return usageError{errors.New("--run and --sources both name the sources: give one")}
	case vf.output != "" && !vf.fix:
		return usageError{errors.New("--output is for the fixed report: use it with --fix")}
	case vf.output != "" && reportPath == "" && vf.run == "":
		return usageError{errors.New("--output takes one fixed report: name the report to fix (without one, --fix rewrites each file in place)")}
	case vf.threshold <= 0 || vf.threshold > 1:
		return usageError{fmt.Errorf("--threshold %v: must be in (0, 1]", vf.threshold)}
	case vf.rlm && vf.corpusOnly:
		return usageError{errors.New("--rlm and --corpus-only each narrow the checks: give one")}
	}
	unsupported, err := verify.ParseAction(vf.unsupported)
	if err != nil || vf.unsupported == "" {
		return usageError{fmt.Errorf("--unsupported %q: want keep, flag or remove", vf.unsupported)}
	}
	opts := verify.Options{Threshold: vf.threshold, Fix: vf.fix, Unsupported: unsupported, Uncited: vf.uncited}
	switch {
	case vf.rlm:
		opts.Scope = verify.ScopeRLM
	case vf.corpusOnly:
		opts.Scope = verify.ScopeCorpus
	}

	var runBody string
	var sources []verify.Source
	switch {
	case vf.run != "":
		if runBody, sources, err = runSources(cmd, vf); err != nil {
			return err
		}
	case vf.sources != "":
		var runID string
		if sources, runID, err = loadSources(vf.sources); err != nil {
			return inputError(err)
		}
		if err := storeTexts(cmd, vf.store, runID, sources); err != nil {
			return err
		}
	default:
		opts.NoSources = true
	}
	if vf.corpus != "" {
		if err := readCorpusTexts(vf.corpus, sources); err != nil {
			return inputError(err)
		}
	}
	root, err := os.OpenRoot(cmp.Or(vf.root, "."))
	if err != nil {
		return inputError(fmt.Errorf("--root: %w", err))
	}
	defer root.Close()
	opts.Files = root.FS()

	// The reports: the one named, the stored run's own, or every .md file
	// under the current folder.
	var paths []string
	switch {
	case reportPath != "":
		paths = []string{reportPath}
	case vf.run != "":
		paths = []string{""}
	default:
		if paths, err = markdownFiles(".", vf.report); err != nil {
			return inputError(err)
		}
	}
	var all []*verified
	for _, p := range paths {
		v, err := verifyOne(cmd, vf, p, runBody, sources, opts)
		if err != nil {
			return err
		}
		all = append(all, v)
	}

	summary := cmd.OutOrStdout()
	if vf.fix {
		if summary, err = writeFixes(cmd, vf, reportPath == "" && vf.run == "", all); err != nil {
			return err
		}
	}
	var out bytes.Buffer
	if err := writeVerified(&out, vf, all); err != nil {
		return err
	}
	if vf.report == defaultReportPath {
		if vf.json {
			vf.report = strings.TrimSuffix(vf.report, ".md") + ".json"
		}
		if err := os.MkdirAll(filepath.Dir(vf.report), 0o755); err != nil {
			return inputError(fmt.Errorf("--report: %w", err))
		}
	}
	if vf.report != "" {
		o, err := checkOutput(vf.report)
		if err != nil {
			return inputError(fmt.Errorf("--report: %w", err))
		}
		if err := o.write(out.Bytes()); err != nil {
			return err
		}
	}
	// The summary quotes the report and its sources: printed, not obeyed.
	if _, err := (printableWriter{W: summary, JSON: vf.json}).Write(out.Bytes()); err != nil {
		return err
	}
	for _, v := range all {
		if !v.pass(vf.strict) {
			return &exitError{code: 1, err: errVerifyFailed}
		}
	}
	return nil
}

// defaultReportPath is where a bare --report saves the verification
// report (seed 002's place for it; .json with --json).
const defaultReportPath = ".aiwg/reports/citation-verification.md"

// bareReportFlag gives a bare "--report" of the verify command its
// default path: "--report" last, or followed by another flag, becomes
// "--report=" + defaultReportPath. "--report FILE" is as it was. It is
// applied to the command line before it is parsed (a string flag cannot
// be both bare and take the next word).
func bareReportFlag(args []string) []string {
	i := slices.Index(args, "verify")
	if i < 0 {
		return args
	}
	out := slices.Clone(args)
	for j := i + 1; j < len(out); j++ {
		switch {
		case out[j] == "--":
			return out
		case out[j] == "--report" && (j+1 == len(out) || strings.HasPrefix(out[j+1], "-") && out[j+1] != "-"):
			out[j] = "--report=" + defaultReportPath
		}
	}
	return out
}

// verifyOne checks the report at path ("-": stdin; "": the stored run's
// own report, runBody).
func verifyOne(cmd *cobra.Command, vf verifyFlags, path, runBody string, sources []verify.Source, opts verify.Options) (*verified, error) {
	v := &verified{name: path, text: runBody}
	if path == "" {
		v.name = "run " + vf.run
	} else {
		var err error
		if v.text, err = readReport(cmd.InOrStdin(), path); err != nil {
			return nil, inputError(err)
		}
	}
	// A YAML report ("run --format yaml", a .yaml or .yml file): its
	// sidecar is checked as YAML, and it is then read as the JSON report.
	var yamlSidecar []verify.SidecarProblem
	isYAML := isYAMLPath(path)
	if isYAML {
		var err error
		if yamlSidecar, err = verify.CheckYAMLSidecar([]byte(v.text), "/_citations"); err != nil {
			return nil, inputError(fmt.Errorf("%s: %w", v.name, err))
		}
		b, err := yamlToJSON([]byte(v.text))
		if err != nil {
			return nil, inputError(fmt.Errorf("%s: %w", v.name, err))
		}
		v.text = string(b)
	}
	// A JSON report ("run --format json"): its citation sidecar is checked,
	// and its text verified.
	if isYAML || strings.HasPrefix(strings.TrimSpace(v.text), "{") {
		if vf.fix {
			return nil, usageError{errors.New("--fix rewrites markdown reports, not JSON ones")}
		}
		text, fromSidecar, sidecar, err := verify.JSONReportText([]byte(v.text))
		if err != nil {
			return nil, inputError(fmt.Errorf("%s: %w", v.name, err))
		}
		v.text, v.sidecar = text, sidecar
		if isYAML {
			v.sidecar = yamlSidecar
		}
		if fromSidecar {
			// Another's document (the citation protocol's JSON form): its
			// claims are in its sidecar, which is authoritative.
			v.note = "checked: the claims of its sidecar (_citations), one a line: line n is entry n-1"
		}
	}
	res, err := verify.Verify(cmd.Context(), v.text, sources, opts)
	if err != nil {
		if errors.Is(err, verify.ErrSources) || errors.Is(err, verify.ErrTooLarge) {
			return nil, inputError(err)
		}
		return nil, err
	}
	v.res = res
	return v, nil
}

// writeFixes writes the fixed reports: one to --output or stdout (the
// summary then goes to stderr, which it returns), or with inPlace each
// file that changed, rewritten atomically.
func writeFixes(cmd *cobra.Command, vf verifyFlags, inPlace bool, all []*verified) (io.Writer, error) {
	switch {
	case inPlace:
		for _, v := range all {
			if v.res.Fixed != v.text {
				if err := writeFixed(v.name, v.res.Fixed); err != nil {
					return nil, err
				}
			}
		}
		return cmd.OutOrStdout(), nil
	case vf.output != "" && vf.output != "-": // "-": stdout, as without -o
		return cmd.OutOrStdout(), writeFixed(vf.output, all[0].res.Fixed)
	}
	_, err := io.WriteString(cmd.OutOrStdout(), all[0].res.Fixed)
	return cmd.ErrOrStderr(), err
}

// writeVerified writes the results: one report's as it always was, or
// several, each under its file's name, then the verdict over all.
func writeVerified(w io.Writer, vf verifyFlags, all []*verified) error {
	if vf.json {
		type one struct {
			File string `json:"file,omitempty"`
			Note string `json:"note,omitempty"`
			*verify.Result
			Sidecar []verify.SidecarProblem `json:"sidecar,omitempty"`
			Pass    bool                    `json:"pass"`
			Strict  bool                    `json:"strict"`
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if len(all) == 1 {
			v := all[0]
			return enc.Encode(one{"", v.note, v.res, v.sidecar, v.pass(vf.strict), vf.strict})
		}
		out := struct {
			Files []one `json:"files"`
			Pass  bool  `json:"pass"`
		}{Files: []one{}, Pass: true}
		for _, v := range all {
			out.Files = append(out.Files, one{v.name, v.note, v.res, v.sidecar, v.pass(vf.strict), vf.strict})
			out.Pass = out.Pass && v.pass(vf.strict)
		}
		return enc.Encode(out)
	}
	failed := 0
	for i, v := range all {
		if len(all) > 1 {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "== %s\n\n", v.name)
		}
		if v.note != "" {
			fmt.Fprintf(w, "%s\n\n", v.note)
		}
		for _, p := range v.sidecar {
			fmt.Fprintf(w, "sidecar entry %d (%s): %s\n", p.Index, p.Path, p.Message)
		}
		if len(v.sidecar) > 0 {
			fmt.Fprintf(w, "FAIL: the citation sidecar has %d problems\n\n", len(v.sidecar))
		}
		if err := writeVerdict(w, v, vf.strict); err != nil {
			return err
		}
		if vf.fix && len(all) > 1 && v.res.Fixed != v.text {
			fmt.Fprintf(w, "fixed: %s rewritten\n", v.name)
		}
		if !v.pass(vf.strict) {
			failed++
		}
	}
	if len(all) > 1 {
		verdict := "PASS"
		if failed > 0 {
			verdict = "FAIL"
		}
		_, err := fmt.Fprintf(w, "\n%s: %d files, %d failed\n", verdict, len(all), failed)
		return err
	}
	return nil
}

// markdownFiles lists the .md files under dir, hidden folders and files
// left out, in path order; skip (the --report file) too.
func markdownFiles(dir, skip string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.EqualFold(filepath.Ext(p), ".md") && (skip == "" || filepath.Clean(skip) != filepath.Clean(p)) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no report named, and no .md file under %s", dir)
	}
	return out, nil
}

// readReport reads the report from stdin ("-") or a file: at most
// verify.MaxBytes (16 MiB, as cite reads).
func readReport(stdin io.Reader, path string) (string, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return "", fmt.Errorf("reading the report: %w", err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, verify.MaxBytes+1))
	if err != nil {
		return "", fmt.Errorf("reading the report: %w", err)
	}
	if len(b) > verify.MaxBytes {
		return "", fmt.Errorf("the report is larger than 16 MiB, the most verify reads")
	}
	return string(b), nil
}

// storedRun opens the run store (--store, else store.path's default) and
// reads run id: its report and the sources it kept. With quiet, a store or
// run that is not there is no error: ok is false.
func storedRun(cmd *cobra.Command, store, id string, quiet bool) (rep *deepresearch.Report, kept []runstore.Source, ok bool, err error) {
	ctx := cmd.Context()
	path := store
	if path == "" {
		if path, err = config.DefaultStorePath(); err != nil {
			return nil, nil, false, inputError(err)
		}
	}
	if _, err := os.Stat(path); err != nil {
		if quiet && store == "" {
			return nil, nil, false, nil
		}
		return nil, nil, false, inputError(fmt.Errorf("--store: %w", err))
	}
	st, err := sqlitestore.Open(ctx, path, sqlitestore.Options{})
	if err != nil {
		return nil, nil, false, inputError(fmt.Errorf("--store: %w", err))
	}
	defer st.Close()
	raw, err := st.Report(ctx, id)
	if err != nil {
		if quiet {
			return nil, nil, false, nil
		}
		return nil, nil, false, inputError(fmt.Errorf("--run %s: %w", id, err))
	}
	if rep, err = deepresearch.LoadReport(raw); err != nil {
		return nil, nil, false, inputError(fmt.Errorf("run %s: %w", id, err))
	}
	if kept, err = st.Sources(ctx, id); err != nil {
		return nil, nil, false, err
	}
	return rep, kept, true, nil
}

// runSources reads a stored run (--run): its sources, numbered as its
// report's references, with the text its agents read (else the text the
// store kept), and its own report body.
func runSources(cmd *cobra.Command, vf verifyFlags) (string, []verify.Source, error) {
	rep, kept, _, err := storedRun(cmd, vf.store, vf.run, false)
	if err != nil {
		return "", nil, err
	}
	return rep.Body, rep.CitedSources(kept), nil
}

// storeTexts fills in, from the run store, the texts of the sources of a
// JSON report whose run the store holds (its run_id): checked against
// what the agents read, not only the passages the report kept. A store or
// run that is not there leaves the sources as they are.
func storeTexts(cmd *cobra.Command, store, runID string, sources []verify.Source) error {
	if runID == "" || !slices.ContainsFunc(sources, func(s verify.Source) bool { return s.Text == "" }) {
		return nil
	}
	rep, kept, ok, err := storedRun(cmd, store, runID, true)
	if !ok || err != nil {
		return err
	}
	read := map[int]verify.Source{}
	for _, s := range rep.CitedSources(kept) {
		read[s.Number] = s
	}
	for i := range sources {
		s := &sources[i]
		if r, ok := read[s.Number]; ok && s.Text == "" && r.URL == s.URL && r.ID == s.ID {
			s.Text = r.Text
		}
	}
	return nil
}

// loadSources reads --sources: a folder of documents, or a JSON file (and
// then the run_id of a JSON report).
func loadSources(p string) ([]verify.Source, string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, "", fmt.Errorf("--sources: %w", err)
	}
	if st.IsDir() {
		r, err := os.OpenRoot(p)
		if err != nil {
			return nil, "", fmt.Errorf("--sources: %w", err)
		}
		defer r.Close()
		srcs, err := verify.SourcesFromFS(r.FS())
		if err != nil {
			return nil, "", fmt.Errorf("--sources %s: %w", p, err)
		}
		return srcs, "", nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, "", fmt.Errorf("--sources: %w", err)
	}
	if isYAMLPath(p) {
		if b, err = yamlToJSON(b); err != nil {
			return nil, "", fmt.Errorf("--sources %s: %w", p, err)
		}
	}
	srcs, err := verify.ParseSources(b)
	if err != nil {
		return nil, "", fmt.Errorf("--sources %s: %w", p, err)
	}
	var doc struct {
		RunID string `json:"run_id"`
	}
	_ = json.Unmarshal(b, &doc) // a list has no run_id
	return srcs, doc.RunID, nil
}

// readCorpusTexts fills in the text of sources without one whose URL is a
// file: URL inside dir. Files are read through an os.Root, so neither ".."
// nor a symbolic link leads out of dir; other sources are left as they are.
func readCorpusTexts(dir string, sources []verify.Source) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("--corpus: %w", err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return fmt.Errorf("--corpus: %w", err)
	}
	defer root.Close()
	for i := range sources {
		s := &sources[i]
		if s.Text != "" {
			continue
		}
		u, err := url.Parse(s.URL)
		if err != nil || !strings.EqualFold(u.Scheme, "file") || u.Path == "" {
			continue
		}
		rel, err := filepath.Rel(abs, filepath.FromSlash(u.Path))
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		b, err := root.ReadFile(rel)
		if err != nil {
			continue // not retrieved: verify says so
		}
		s.Text, _ = verify.DocumentText(rel, b)
	}
	return nil
}

// writeFixed writes the fixed report to path, atomically for a regular
// file (see output).
func writeFixed(path, data string) error {
	o, err := checkOutput(path)
	if err != nil {
		return err
	}
	return o.write([]byte(data))
}

// writeVerdict writes v's result as text; a sidecar with problems turns its
// final verdict line into FAIL and counts them there, so that the last line
// always agrees with the exit status.
func writeVerdict(w io.Writer, v *verified, strict bool) error {
	if len(v.sidecar) == 0 {
		return v.res.WriteText(w, strict)
	}
	var buf bytes.Buffer
	if err := v.res.WriteText(&buf, strict); err != nil {
		return err
	}
	text := strings.TrimSuffix(buf.String(), "\n")
	head, last := "", text
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		head, last = text[:i+1], text[i+1:]
	}
	problems := fmt.Sprintf("%d sidecar problems", len(v.sidecar))
	if len(v.sidecar) == 1 {
		problems = "1 sidecar problem"
	}
	switch {
	case strings.HasPrefix(last, "PASS") || last == "FAIL":
		last = "FAIL (" + problems + ")"
	case strings.HasPrefix(last, "FAIL (") && strings.HasSuffix(last, ")"):
		last = strings.TrimSuffix(last, ")") + ", " + problems + ")"
	}
	_, err := io.WriteString(w, head+last+"\n")
	return err
}

// isYAMLPath reports whether p names a YAML file (.yaml or .yml).
func isYAMLPath(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	return ext == ".yaml" || ext == ".yml"
}

// yamlToJSON decodes one YAML document ("run --format yaml") and encodes it
// as JSON, so that a YAML report is read exactly as the JSON one.
func yamlToJSON(b []byte) ([]byte, error) {
	var doc any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("not YAML: %w", err)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("YAML that JSON cannot hold: %w", err)
	}
	return out, nil
}
