package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/sqlitestore"
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
}

// errVerifyFailed is the FAIL verdict (exit status 1).
var errVerifyFailed = errors.New("the report failed verification")

func newVerifyCmd() *cobra.Command {
	var vf verifyFlags
	cmd := &cobra.Command{
		Use:   "verify --sources SOURCES REPORT.md",
		Short: "Check a report's citations against its sources",
		Long: `verify checks every citation of a markdown report ("-" reads stdin):
does the cited number have a source, was that source really retrieved (a source
with no text, or a number not among the sources, is fabricated), and does the
source support the sentence that cites it (a lexical support score, with the
source's best-matching passage as evidence). It also checks DOIs and
"Author et al., YEAR" against the sources, and file references
[path, L10-20] / [path@hash, L10-20] against the files under --root (MISSING,
STALE by content hash: the first 16 hex digits of the file's SHA-256, FRESH).
Two numbers whose sources have the same canonical URL are reported as
duplicates.

SOURCES is a JSON list [{"number", "title", "url", "text"}] (the references
of "deepresearch run --format json", whose whole output is accepted too), or
a folder of documents (.md .txt .html …), numbered by a leading number in
their names ("3-intro.md") when all have one, else 1..N in path order.

REPORT.md may also be a JSON report ("run --format json"): its citation
sidecar ("_citations") is checked too (every path a JSON Pointer to a string
that cites exactly the listed reference numbers), and its "text" verified.

A run's references carry no text: --corpus DIR fills in the text of each
source whose URL is a file: URL inside DIR (read through DIR only; HTML
reduced to its text), so that a run over a local corpus can be checked:

  deepresearch run --format json -o run.json "QUESTION"
  deepresearch verify --sources run.json --corpus "$(go env GOROOT)/doc" run.json

Output: a summary table, each problem with its line and a suggested fix, and
PASS or FAIL (--json: the whole result as JSON). Errors (fabricated citations,
missing files) fail; warnings (unsupported sentences, duplicates, stale or
unversioned files, unmatched DOIs) fail only with --strict.

--fix removes citations of sources that do not exist or were never retrieved
(--unsupported flag|remove also acts on unsupported ones; keep, the
default, leaves them) and writes the fixed
report to stdout, or to --output; the summary then goes to stderr. The
verdict is the report's as given, before the fix.

A report of at most 16 MiB is read (as cite reads), with at most 250000
citation markers; the sources it cites may hold 16 MiB of text in all.

Exit status: 0 PASS, 1 FAIL, 2 bad input.`,
		Example: `  deepresearch run --format json "Why do goroutines leak?" > run.json
  jq -r .text run.json > report.md
  deepresearch verify --sources run.json report.md
  deepresearch verify --sources ./docs --strict --json report.md
  deepresearch verify --sources refs.json --fix -o fixed.md report.md`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 || len(args) == 0 && vf.run == "" {
				return usageError{fmt.Errorf("verify takes one report file (or -; with --run, none checks the run's own report), got %d arguments", len(args))}
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
	f.StringVar(&vf.sources, "sources", "", "JSON list of sources, or a folder of documents")
	f.StringVar(&vf.corpus, "corpus", "", "fill in the text of sources whose file: URL lies in this folder (a run's corpus)")
	f.StringVar(&vf.root, "root", "", "folder that file references are relative to (default: the report's folder)")
	f.StringVar(&vf.run, "run", "", "check against a stored run: its sources, with the text its agents read")
	f.StringVar(&vf.store, "store", "", "the run store, for --run (default: store.path's default)")
	f.BoolVar(&vf.json, "json", false, "print the result as JSON")
	f.BoolVar(&vf.strict, "strict", false, "fail on warnings too")
	f.BoolVar(&vf.fix, "fix", false, "write the report with citations of nonexistent sources removed")
	f.StringVar(&vf.unsupported, "unsupported", "keep", "with --fix: keep, flag or remove unsupported citations")
	f.Float64Var(&vf.threshold, "threshold", deepresearch.DefaultThreshold, "lexical support score from which a sentence is supported")
	f.StringVarP(&vf.output, "output", "o", "", "with --fix: write the fixed report to FILE (atomically)")
	return cmd
}

func runVerify(cmd *cobra.Command, vf verifyFlags, reportPath string) error {
	switch {
	case vf.run != "" && vf.sources != "":
		return usageError{errors.New("--run and --sources both name the sources: give one")}
	case vf.run == "" && vf.sources == "":
		return usageError{errors.New("verify needs --sources (a JSON list of sources or a folder of documents)")}
	case vf.output != "" && !vf.fix:
		return usageError{errors.New("--output is for the fixed report: use it with --fix")}
	case vf.threshold <= 0 || vf.threshold > 1:
		return usageError{fmt.Errorf("--threshold %v: must be in (0, 1]", vf.threshold)}
	}
	unsupported, err := deepresearch.ParseAction(vf.unsupported)
	if err != nil || vf.unsupported == "" {
		return usageError{fmt.Errorf("--unsupported %q: want keep, flag or remove", vf.unsupported)}
	}

	var report string
	var sources []deepresearch.SourceText
	if vf.run != "" {
		if report, sources, err = runSources(cmd, vf, reportPath); err != nil {
			return err
		}
		if reportPath == "" {
			reportPath = "run " + vf.run
		}
	} else if report, err = readReport(cmd.InOrStdin(), reportPath); err != nil {
		return inputError(err)
	}
	// A JSON report ("run --format json"): its citation sidecar is checked,
	// and its text verified.
	var sidecar []deepresearch.SidecarProblem
	isJSON := strings.HasPrefix(strings.TrimSpace(report), "{")
	if isJSON {
		var doc struct {
			Text *string `json:"text"`
		}
		if err := json.Unmarshal([]byte(report), &doc); err != nil || doc.Text == nil {
			return inputError(fmt.Errorf("%s: a JSON report needs a \"text\" field (%v)", reportPath, err))
		}
		if sidecar, err = deepresearch.CheckSidecar([]byte(report), "/_citations"); err != nil {
			return inputError(err)
		}
		report = *doc.Text
		if vf.fix {
			return usageError{errors.New("--fix rewrites markdown reports, not JSON ones")}
		}
	}
	if vf.run == "" {
		if sources, err = loadSources(vf.sources); err != nil {
			return inputError(err)
		}
	}
	if vf.corpus != "" {
		if err := readCorpusTexts(vf.corpus, sources); err != nil {
			return inputError(err)
		}
	}
	opts := deepresearch.VerifyOptions{Threshold: vf.threshold, Fix: vf.fix, Unsupported: unsupported}
	root := vf.root
	if root == "" && reportPath != "-" && vf.run == "" {
		root = filepath.Dir(reportPath)
	}
	if root != "" {
		r, err := os.OpenRoot(root)
		if err != nil {
			return inputError(fmt.Errorf("--root: %w", err))
		}
		defer r.Close()
		opts.Files = r.FS()
	}
	res, err := deepresearch.Verify(cmd.Context(), report, sources, opts)
	if err != nil {
		if errors.Is(err, deepresearch.ErrSources) || errors.Is(err, deepresearch.ErrVerifyTooLarge) {
			return inputError(err)
		}
		return err
	}

	summary := cmd.OutOrStdout()
	if vf.fix {
		if vf.output != "" && vf.output != "-" { // "-": stdout, as without -o
			if err := writeFixed(vf.output, res.Fixed); err != nil {
				return err
			}
		} else {
			if _, err := io.WriteString(cmd.OutOrStdout(), res.Fixed); err != nil {
				return err
			}
			summary = cmd.ErrOrStderr()
		}
	}
	pass := res.Pass(vf.strict) && len(sidecar) == 0
	// The summary quotes the report and its sources: printed, not obeyed.
	summary = printableWriter{summary, vf.json}
	if vf.json {
		out := struct {
			*deepresearch.VerifyResult
			Sidecar []deepresearch.SidecarProblem `json:"sidecar,omitempty"`
			Pass    bool                          `json:"pass"`
			Strict  bool                          `json:"strict"`
		}{res, sidecar, pass, vf.strict}
		enc := json.NewEncoder(summary)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		for _, p := range sidecar {
			fmt.Fprintf(summary, "sidecar entry %d (%s): %s\n", p.Index, p.Path, p.Message)
		}
		if len(sidecar) > 0 {
			fmt.Fprintf(summary, "FAIL: the citation sidecar has %d problems\n\n", len(sidecar))
		}
		if err := res.WriteText(summary, vf.strict); err != nil {
			return err
		}
	}
	if !pass {
		return &exitError{code: 1, err: errVerifyFailed}
	}
	return nil
}

// readReport reads the report from stdin ("-") or a file: at most
// deepresearch.MaxVerifyBytes (16 MiB, as cite reads).
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
	b, err := io.ReadAll(io.LimitReader(r, deepresearch.MaxVerifyBytes+1))
	if err != nil {
		return "", fmt.Errorf("reading the report: %w", err)
	}
	if len(b) > deepresearch.MaxVerifyBytes {
		return "", fmt.Errorf("the report is larger than 16 MiB, the most verify reads")
	}
	return string(b), nil
}

// runSources reads a stored run: its sources (numbered as its report's
// references, with the text its agents read, else the text the store kept)
// and, unless reportPath names another report, its own report body.
func runSources(cmd *cobra.Command, vf verifyFlags, reportPath string) (string, []deepresearch.SourceText, error) {
	ctx := cmd.Context()
	path := vf.store
	if path == "" {
		p, err := config.DefaultStorePath()
		if err != nil {
			return "", nil, inputError(err)
		}
		path = p
	}
	if _, err := os.Stat(path); err != nil {
		return "", nil, inputError(fmt.Errorf("--store: %w", err))
	}
	st, err := sqlitestore.Open(ctx, path, sqlitestore.Options{})
	if err != nil {
		return "", nil, inputError(fmt.Errorf("--store: %w", err))
	}
	defer st.Close()
	raw, err := st.Report(ctx, vf.run)
	if err != nil {
		return "", nil, inputError(fmt.Errorf("--run %s: %w", vf.run, err))
	}
	rep, err := deepresearch.LoadReport(raw)
	if err != nil {
		return "", nil, inputError(fmt.Errorf("--run %s: %w", vf.run, err))
	}
	kept, err := st.Sources(ctx, vf.run)
	if err != nil {
		return "", nil, err
	}
	report := rep.Body
	if reportPath != "" {
		if report, err = readReport(cmd.InOrStdin(), reportPath); err != nil {
			return "", nil, inputError(err)
		}
	}
	return report, rep.CitedSources(kept), nil
}

// loadSources reads --sources: a folder of documents, or a JSON file.
func loadSources(p string) ([]deepresearch.SourceText, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("--sources: %w", err)
	}
	if st.IsDir() {
		r, err := os.OpenRoot(p)
		if err != nil {
			return nil, fmt.Errorf("--sources: %w", err)
		}
		defer r.Close()
		srcs, err := deepresearch.SourcesFromFS(r.FS())
		if err != nil {
			return nil, fmt.Errorf("--sources %s: %w", p, err)
		}
		return srcs, nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("--sources: %w", err)
	}
	srcs, err := deepresearch.ParseSources(b)
	if err != nil {
		return nil, fmt.Errorf("--sources %s: %w", p, err)
	}
	return srcs, nil
}

// readCorpusTexts fills in the text of sources without one whose URL is a
// file: URL inside dir. Files are read through an os.Root, so neither ".."
// nor a symbolic link leads out of dir; other sources are left as they are.
func readCorpusTexts(dir string, sources []deepresearch.SourceText) error {
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
		s.Text, _ = deepresearch.DocumentText(rel, b)
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
