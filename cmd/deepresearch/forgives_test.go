package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	docs "github.com/deepresearch/deepresearch/corpus"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/hostile"
)

// Issue 32: a CLI that forgives, and an index that says what it did.

// TestDidYouMean: a mistyped command or flag is bad input (status 2)
// answered with what was probably meant; a bad value says what the flag
// wants, and a flag the command does not have names those that do.
func TestDidYouMean(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"command", []string{"rn", "q"}, `unknown command "rn" for "deepresearch"; did you mean run or runs? (see 'deepresearch --help')`},
		{"command before a flag", []string{"rn", "--corpus", "x", "q"}, `unknown command "rn" for "deepresearch"; did you mean run or runs?`},
		{"subcommand", []string{"store", "chek"}, `unknown command "chek" for "deepresearch store"; did you mean check? (see 'deepresearch store --help')`},
		{"flag", []string{"run", "--corpsu", "x", "q"}, `unknown flag --corpsu; did you mean --corpus? (see 'deepresearch run --help')`},
		{"flag with underscores", []string{"run", "--max_tasks", "3", "q"}, `unknown flag --max_tasks; did you mean --max-tasks?`},
		{"flag of index", []string{"index", "--embedings", "openai"}, `unknown flag --embedings; did you mean --embeddings?`},
		{"flag of other commands", []string{"worker", "--format", "md"}, `unknown flag --format for worker (ask, replay, resume, run and show have it)`},
		{"shorthand", []string{"run", "-z", "q"}, `unknown flag -z (see 'deepresearch run --help')`},
		{"whole number", []string{"run", "--max-tasks", "many", "q"}, `--max-tasks "many": want a whole number (see 'deepresearch run --help')`},
		{"duration", []string{"run", "--agent-timeout", "5", "q"}, `--agent-timeout "5": want a duration such as 90s, 2m or 1h30m`},
		{"missing value", []string{"run", "q", "--corpus"}, `--corpus needs an argument: DIR`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantBadInput(t, cli(t, "", tt.args...), tt.want)
		})
	}
	// Nothing close: no suggestion.
	r := cli(t, "", "zzzzzz")
	wantBadInput(t, r, `unknown command "zzzzzz"`)
	if strings.Contains(r.stderr, "did you mean") {
		t.Errorf("a suggestion for nothing alike: %q", r.stderr)
	}
}

// allCommands is every command of the command line, the root first.
func allCommands() []*cobra.Command {
	var out []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		out = append(out, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(nil, nil, nil))
	return out
}

// TestFlagArgumentNames: help names every flag's argument for what it is
// (--nats URL, --corpus DIR), not by its Go type or by a word of its
// description that happens to be in back quotes.
func TestFlagArgumentNames(t *testing.T) {
	argName := regexp.MustCompile(`^[A-Z][A-Z0-9_:]*$`)
	n := 0
	for _, c := range allCommands() {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() == "bool" {
				return
			}
			n++
			if name, _ := pflag.UnquoteUsage(f); !argName.MatchString(name) {
				t.Errorf("%s --%s: help names its argument %q", c.CommandPath(), f.Name, name)
			}
		})
	}
	if n < 50 {
		t.Fatalf("only %d flags with arguments found", n)
	}
	r := cli(t, "", "worker", "--help")
	if !strings.Contains(r.stdout, "--nats URL ") || strings.Contains(r.stdout, "--nats deepresearch") {
		t.Errorf("worker --help does not show --nats URL:\n%s", r.stdout)
	}
}

// TestNoDeadFlags: a command has no flag that would change nothing: a
// worker takes its limits from each task and writes no report, plan
// neither searches nor writes, doctor makes no run, serve and mcp take
// the report's format from each request (Markdown for MCP), a replay
// runs the run's own request.
func TestNoDeadFlags(t *testing.T) {
	limits := []string{"max-tasks", "parallelism", "search-limit", "max-tool-calls", "max-tokens", "agent-timeout", "max-run-tokens", "max-cost", "max-cycles"}
	dead := map[string][]string{
		"worker": append([]string{"format", "style", "store"}, limits...),
		"plan": {"embeddings", "corpus", "index", "search", "fetch-allow", "search-limit", "max-tool-calls", "max-tokens", "agent-timeout",
			"max-run-tokens", "max-cost", "parallelism", "format", "style", "store", "log-level", "log-format", "length", "language", "audience"},
		"doctor": append([]string{"format", "style", "store", "fetch-allow", "log-level", "log-format"}, limits...),
		"serve":  {"format"},
		"mcp":    {"format"},
		"replay": append([]string{"style"}, limits...),
	}
	run := cli(t, "", "run", "--help").stdout
	for cmd, flags := range dead {
		help := cli(t, "", cmd, "--help").stdout
		for _, f := range flags {
			if strings.Contains(help, "--"+f+" ") {
				t.Errorf("%s --help lists --%s, which does nothing for it", cmd, f)
			}
			if f != "length" && f != "language" && f != "audience" && !strings.Contains(run, "--"+f+" ") {
				t.Errorf("run has no --%s: the test checks nothing", f)
			}
		}
	}
}

// TestRunHelpWorkerEvents: run --help says what natsrun does now: an
// agent's events are relayed live from its worker, not only at the end.
func TestRunHelpWorkerEvents(t *testing.T) {
	help := strings.Join(strings.Fields(cli(t, "", "run", "--help").stdout), " ")
	if strings.Contains(help, "arrive when its worker finishes") {
		t.Errorf("run --help still says worker events arrive at the end")
	}
	if !strings.Contains(help, "events arrive while its worker runs it (relayed live over NATS") {
		t.Errorf("run --help does not say that worker events are relayed live:\n%s", help)
	}
}

// TestRunBadCorpus: a corpus folder that is missing, empty or holds no
// document is bad input (status 2), named in the message, and no run is
// stored.
func TestRunBadCorpus(t *testing.T) {
	index := isolate(t)
	store := filepath.Join(t.TempDir(), "runs.db")
	base := t.TempDir()
	empty := filepath.Join(base, "empty")
	pictures := filepath.Join(base, "pictures")
	for _, dir := range []string{empty, pictures} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(pictures, "photo.png"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ dir, want string }{
		{filepath.Join(base, "missing"), filepath.Join(base, "missing") + ": no such folder"},
		{empty, empty + ": no document to index: the folder is empty"},
		{pictures, pictures + ": no document to index: 1 file, of formats the index does not read (photo.png)"},
	} {
		wantBadInput(t, cli(t, "", "run", "--corpus", tt.dir, "--index", index, "--store", store, "--progress", "never", question), tt.want)
	}
	// A bad flag value, too, before anything is stored.
	wantBadInput(t, cli(t, "", "run", "--corpus", corpus, "--store", store, "--max-tasks", "0x", question), "--max-tasks")
	r := cli(t, "", "runs", "--json", "--store", store)
	if r.code != 0 || strings.Contains(r.stdout, `"id"`) {
		t.Errorf("runs were stored for bad input: %d %s %s", r.code, r.stdout, r.stderr)
	}
}

// TestRunTitleKeepsQuestionMark: the report's title is the question, its
// question mark kept.
func TestRunTitleKeepsQuestionMark(t *testing.T) {
	r := research(t)
	wantSuccess(t, r)
	if first, _, _ := strings.Cut(r.stdout, "\n"); first != "# "+question {
		t.Errorf("title %q, want %q", first, "# "+question)
	}
}

// writeCorpus writes files into a new folder and returns it.
func writeCorpus(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestIndexSaysWhatItDid: every file is counted; gzip-compressed
// documents, ODT, JSON, HTML and rst are read; each skipped document is
// listed with its reason (a gzip bomb among them), files of other formats
// are counted by extension, listed one by one with --verbose, and all in
// --json. Off a terminal, stderr stays quiet: no progress line.
func TestIndexSaysWhatItDid(t *testing.T) {
	index := isolate(t)
	odt, err := os.ReadFile("../../internal/extract/testdata/formats/guide.odt")
	if err != nil {
		t.Fatal(err)
	}
	dir := writeCorpus(t, map[string][]byte{
		"guide.odt":     odt,
		"notes.md.gz":   hostile.Gzip([]byte("# Splicing\n\nA splice of the quokkafish cable takes sixteen hours.\n")),
		"depots.json":   []byte(`{"depot": "Porthcurno", "ship": "Monarch"}` + "\n"),
		"page.html":     []byte("<html><head><title>Depot</title></head><body><p>The depot keeps the grapnels.</p></body></html>"),
		"guide.rst":     []byte("Repeaters\n=========\n\nRepeaters are inspected every eighteen months.\n"),
		"bomb.txt.gz":   hostile.GzipBomb(64 << 20),
		"broken.md":     []byte("nul\x00byte"),
		"photo.png":     []byte("x"),
		"scan.png":      []byte("x"),
		"tools/main.go": []byte("package main\n"),
	})
	r := cli(t, "", "index", dir, "--index", index)
	c := parseIndex(t, r, dir, index)
	if c != (indexCounts{scanned: 10, added: 5, skipped: 5, passages: c.passages}) || c.passages < 5 {
		t.Errorf("counts %+v", c)
	}
	for _, want := range []string{
		"  skipped bomb.txt.gz: too large: unpacks to more than 8 MiB (a gzip bomb?)\n",
		"  skipped broken.md: contains NUL bytes\n",
		"  skipped 2 files: not a format the index reads (.png) (--verbose lists them)\n",
		"  skipped 1 file: not a format the index reads (.go) (--verbose lists them)\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("index does not print %q:\n%s", want, r.stdout)
		}
	}
	if r.stderr != "" {
		t.Errorf("stderr off a terminal: %q", r.stderr)
	}

	r = cli(t, "", "index", "--verbose", dir, "--index", index)
	parseIndex(t, r, dir, index)
	for _, want := range []string{"  skipped photo.png: not a format the index reads (.png)\n", "  skipped scan.png: not a format the index reads (.png)\n",
		"  skipped tools/main.go: not a format the index reads (.go)\n", "  skipped bomb.txt.gz: too large"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("index --verbose does not print %q:\n%s", want, r.stdout)
		}
	}

	r = cli(t, "", "index", "--json", dir, "--index", index)
	wantSuccess(t, r)
	var st docs.Stats
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("index --json: %v\n%s", err, r.stdout)
	}
	unsupported := 0
	for _, sk := range st.Skips {
		if sk.Unsupported {
			unsupported++
		}
	}
	if st.Dir != dir || st.IndexPath != index || st.Scanned != 10 || st.Unchanged != 5 || st.Skipped != 5 || len(st.Skips) != 5 ||
		unsupported != 3 || st.Documents != 5 {
		t.Errorf("index --json: %+v", st)
	}
}

// TestIndexBadInput: a folder that does not exist, is empty, or leaves
// the index without documents is bad input, and the message says why.
func TestIndexBadInput(t *testing.T) {
	isolate(t)
	base := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "empty", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	pictures := writeCorpus(t, map[string][]byte{"photo.png": []byte("x")})
	broken := writeCorpus(t, map[string][]byte{"broken.md": []byte("nul\x00"), "photo.png": []byte("x")})
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"missing", []string{filepath.Join(base, "missing")}, "missing: no such folder"},
		{"a file", []string{filepath.Join(broken, "broken.md")}, "broken.md: no such folder: it is a file"},
		{"empty", []string{filepath.Join(base, "empty")}, "no document to index: the folder is empty"},
		{"other formats", []string{pictures}, "no document to index: 1 file, of formats the index does not read (photo.png)"},
		{"all skipped", []string{broken}, "no document to index: 2 files, all skipped (broken.md: contains NUL bytes; photo.png: not a format the index reads (.png))"},
		{"all skipped, as JSON", []string{"--json", broken}, "all skipped"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantBadInput(t, cli(t, "", append(append([]string{"index"}, tt.args...), "--index", filepath.Join(t.TempDir(), "i.db"))...), tt.want)
		})
	}
}

// TestIndexEmbeddingsFlag: index --embeddings MODEL embeds the passages
// with that model (an OpenAI-compatible server here), as
// DEEPRESEARCH_MODEL_EMBEDDINGS does.
func TestIndexEmbeddingsFlag(t *testing.T) {
	index := isolate(t)
	srv := deepresearchtest.NewOpenAIServer(nil, deepresearchtest.OpenAIOptions{
		Embedder: deepresearchtest.NewConcepts([][]string{{"cable", "wire"}}),
	})
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	r := cli(t, "", "index", "--embeddings", "openai:concepts", corpus, "--index", index)
	wantSuccess(t, r)
	m := regexp.MustCompile(`; (\d+) passages, (\d+) embedded with openai:concepts\n`).FindStringSubmatch(r.stdout)
	if m == nil || m[1] == "0" || m[1] != m[2] {
		t.Errorf("index --embeddings: %q", r.stdout)
	}
}

// TestIndexProgressOnTerminal: on a terminal, index draws a progress line
// on stderr (files, passages) and clears it before its summary.
func TestIndexProgressOnTerminal(t *testing.T) {
	index := isolate(t)
	args, _ := json.Marshal([]string{"index", corpus, "--index", index})
	term := startTerminal(t, args)
	term.expect("indexing: ")
	term.expect(" passages")
	term.expect("\r\x1b[K") // cleared
	term.expect("indexed ")
	out, err := io.ReadAll(term.screen)
	var pe *os.PathError
	if err != nil && !(errors.As(err, &pe) && errors.Is(pe.Err, syscall.EIO)) {
		t.Fatal(err)
	}
	if err := term.cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s%s", err, term.seen.String(), out)
	}
	if !strings.Contains(string(out), "files scanned, 10 added") {
		t.Errorf("the summary after the progress line: %q", term.seen.String()+string(out))
	}
}
