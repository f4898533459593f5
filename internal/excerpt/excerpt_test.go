package excerpt

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestUnits(t *testing.T) {
	text := "# Kmemleak\n\nIntro paragraph\nover two lines.\n\n## Usage\n\nTo trigger a scan:\n\n    # echo scan > /sys/kernel/debug/kmemleak\n\n- first item\n- second item\n\n```\ncode line\n\nstill code\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nDESCRIPTION\n       Indented manual prose.\n\nSetext heading\n==============\n\nLast words.\n"
	want := []wantUnit{
		{Prose, "Kmemleak", "Intro paragraph\nover two lines."},
		{Prose, "Usage", "To trigger a scan:"},
		{Code, "Usage", "    # echo scan > /sys/kernel/debug/kmemleak"},
		{Item, "Usage", "- first item"},
		{Item, "Usage", "- second item"},
		{Code, "Usage", "```\ncode line\n\nstill code\n```"},
		{Table, "Usage", "| a | b |\n|---|---|\n| 1 | 2 |"},
		{Prose, "DESCRIPTION", "       Indented manual prose."},
		{Prose, "Setext heading", "Last words."},
	}
	checkUnits(t, text, want)
}

// wantUnit is a unit a test expects of Units.
type wantUnit struct {
	kind    Kind
	heading string
	text    string
}

// checkUnits checks that Units(text) gives want, each unit's offsets
// giving its text.
func checkUnits(t *testing.T, text string, want []wantUnit) {
	t.Helper()
	got := Units(text)
	if len(got) != len(want) {
		for _, u := range got {
			t.Logf("%d %q %q", u.Kind, u.Heading, u.Text)
		}
		t.Fatalf("%d units, want %d", len(got), len(want))
	}
	for i, w := range want {
		u := got[i]
		if u.Kind != w.kind || u.Heading != w.heading || u.Text != w.text {
			t.Errorf("unit %d = {%d %q %q}, want {%d %q %q}", i, u.Kind, u.Heading, u.Text, w.kind, w.heading, w.text)
		}
		if text[u.Start:u.End] != u.Text && !strings.HasPrefix(text[u.Start:u.End], u.Text) {
			t.Errorf("unit %d's offsets [%d:%d] give %q, not its text", i, u.Start, u.End, text[u.Start:u.End])
		}
	}
}

func TestSplitLong(t *testing.T) {
	long := strings.Repeat("word ", 1000)
	units := Units(long)
	total := 0
	for _, u := range units {
		if len(u.Text) > maxUnit {
			t.Errorf("a unit of %d bytes, over %d", len(u.Text), maxUnit)
		}
		if long[u.Start:u.Start+len(u.Text)] != u.Text {
			t.Errorf("unit at %d does not match the text there", u.Start)
		}
		total += len(strings.Fields(u.Text))
	}
	if total != 1000 {
		t.Errorf("%d words in the units, want 1000", total)
	}
}

// longPage is a manual page of many sections, one of which answers.
func longPage() string {
	var b strings.Builder
	b.WriteString("# Kernel Memory Leak Detector\n\nKmemleak provides a way of detecting possible kernel memory leaks.\n\n")
	for i := range 60 {
		fmt.Fprintf(&b, "## Background %d\n\nThe scanner walks object graph number %d and reports nothing unusual here.\n\n", i, i)
	}
	b.WriteString("## Usage\n\nTo list the possible memory leaks that were never freed, read the file:\n\n    cat /sys/kernel/debug/kmemleak\n\nTo trigger an intermediate memory scan:\n\n    echo scan > /sys/kernel/debug/kmemleak\n\n")
	for i := range 60 {
		fmt.Fprintf(&b, "## Appendix %d\n\nMore about tracking %d.\n\n", i, i)
	}
	return b.String()
}

func TestCut(t *testing.T) {
	page := longPage()
	q := "How do I list kernel memory leaks that were never freed?"
	got := Cut(page, "", q, 1500)
	if len(got) > 1600 {
		t.Errorf("cut to %d bytes, budget 1500", len(got))
	}
	for _, want := range []string{
		"Kmemleak provides a way",               // the head: what the document is
		"## Usage",                              // the heading of the answering part
		"that were never freed, read the file:", // the lead
		"cat /sys/kernel/debug/kmemleak",        // and the command it leads into
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the cut lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Background 30") {
		t.Errorf("the cut holds a section without the question's terms:\n%s", got)
	}
	if short := "A short text."; Cut(short, "", q, 100) != short {
		t.Error("a text within the budget is cut")
	}
	if got := Cut(page, "", "zebra", 300); !strings.HasPrefix(got, "# Kernel Memory Leak Detector") {
		t.Errorf("with no term found, the cut is not the head:\n%s", got)
	}
}

// TestCutKeepsTheOpening: a long manual page cut for a question its
// later section answers keeps, besides that section, its opening up to
// the first paragraph — the NAME line and SYNOPSIS that name the calls
// the section describes without naming them (setrlimit) — and not the
// rest of the page's head.
func TestCutKeepsTheOpening(t *testing.T) {
	var b strings.Builder
	b.WriteString("getrlimit(2)    System Calls Manual    getrlimit(2)\n\n## NAME\n\ngetrlimit, setrlimit, prlimit - get/set resource limits\n\n")
	b.WriteString("## SYNOPSIS\n\n       #include <sys/resource.h>\n\n       int getrlimit(int resource, struct rlimit *rlim);\n       int setrlimit(int resource, const struct rlimit *rlim);\n\n")
	b.WriteString("## DESCRIPTION\n\nThe getrlimit() and setrlimit() system calls get and set resource limits. Each resource has an associated soft and hard limit.\n\n")
	b.WriteString("The second paragraph of the description goes on at length and is not the opening.\n\n")
	for i := range 40 {
		fmt.Fprintf(&b, "RLIMIT_OTHER%d\n\nAnother resource, item %d here, described at some length for the reader of this page.\n\n", i, i)
	}
	b.WriteString("RLIMIT_NOFILE\n\nThis specifies a value one greater than the maximum file descriptor number that can be opened by this process.\n\n")
	got := Cut(b.String(), "", "How do I limit the number of open files of a process?", 3000)
	for _, want := range []string{
		"getrlimit, setrlimit, prlimit - get/set resource limits", // NAME
		"int setrlimit(int resource",                              // SYNOPSIS
		"The getrlimit() and setrlimit() system calls",            // the first paragraph
		"maximum file descriptor number",                          // the answering part
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the cut lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "RLIMIT_OTHER0") {
		t.Errorf("the cut keeps the page's head past its opening:\n%s", got)
	}
}

func TestScoreRarity(t *testing.T) {
	units := Units("Memory is used here.\n\nMemory again.\n\nMemory leak found by kmemleak.\n\nMemory.\n")
	s := NewScorer(Weights("", "memory leak"), units)
	if s.Score(units[2]) <= s.Score(units[0]) {
		t.Errorf("the unit with the rare term scores %.2f, one with the common term only %.2f", s.Score(units[2]), s.Score(units[0]))
	}
	if got := s.Score(units[2]); got < 0.999 {
		t.Errorf("a unit holding every term scores %.2f, want 1", got)
	}
}

// TestCodeWithoutFences: code whose fences the index dropped is code,
// and an example's package clause, imports and func, each after a blank
// line, are one block.
func TestCodeWithoutFences(t *testing.T) {
	text := "The simplest use of a Scanner, to read standard input as a set of lines.\n\npackage main\n\nimport (\n\t\"bufio\"\n\t\"os\"\n)\n\nfunc main() {\n\tscanner := bufio.NewScanner(os.Stdin)\n\tfor scanner.Scan() {\n\t}\n}\n\nIf the lines are long, set a buffer.\n\nlock(l)\ndefer unlock(l) // unlocking happens before surrounding function returns\n"
	kinds := kindsOf(Units(text))
	want := []Kind{Prose, Code, Prose, Code}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("kinds %v, want %v", kinds, want)
	}
	if us := Units(text); len(us) > 1 && (!strings.HasPrefix(us[1].Text, "package main") || !strings.HasSuffix(us[1].Text, "}")) {
		t.Errorf("the example is not one block: %q", us[1].Text)
	}
}

// TestCommaLeadsIntoCode: a Go doc comment's paragraph that ends "As an
// example," leads into the indented call after it, which is code however
// little it reads like code, and goes with the paragraph as its context.
// An indented example goes on past a blank line; a manual page's text,
// all of it indented, does not become code so.
func TestCommaLeadsIntoCode(t *testing.T) {
	text := "A log record consists of a time and a level. As an example,\n\n\tslog.Info(\"hello\", \"count\", 3)\n\n\tslog.Warn(\"careful\")\n\ncreates a record containing the time of the call.\n"
	us := Units(text)
	kinds := kindsOf(us)
	if want := []Kind{Prose, Code, Prose}; fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	if !strings.Contains(us[1].Text, "slog.Warn") {
		t.Errorf("the indented example stops at its blank line: %q", us[1].Text)
	}
	if got := WithContext(us, 0); fmt.Sprint(got) != "[0 1]" {
		t.Errorf("the paragraph's context is %v, want [0 1] (it and its example)", got)
	}
	man := "       The call fails when the limit is reached, or\n\n       when the caller lacks the privilege.\n"
	for _, u := range Units(man) {
		if u.Kind != Prose {
			t.Errorf("a manual page's indented paragraph became %v: %q", u.Kind, u.Text)
		}
	}
}

// TestHeadingAttributes: a Markdown heading's attribute block is no part
// of its text.
func TestHeadingAttributes(t *testing.T) {
	us := Units("## func Float32 {#Float32}\n\nFloat32 returns a number.\n\n## Sets {x} apart\n\nText here.\n")
	if len(us) != 2 || us[0].Heading != "func Float32" || us[1].Heading != "Sets {x} apart" {
		t.Errorf("headings %q, %q; want \"func Float32\" and \"Sets {x} apart\"", us[0].Heading, us[1].Heading)
	}
}

// TestWithContextHow: a paragraph comes with the short line after it that
// leads into a command, and the command; a description comes with the
// name it describes, standing on its own line above it.
func TestWithContextHow(t *testing.T) {
	text := "## Flag\n\nAny task can set no_new_privs. Once set, it is inherited across fork and cannot be unset.\n\n" +
		"To set no_new_privs, use::\n\n    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);\n\nA later paragraph.\n\n" +
		"## Functions\n\nfunctools.lru_cache(maxsize=128, typed=False)\n\nDecorator to wrap a function with a memoizing callable.\n"
	us := Units(text)
	quoted := func(idx []int) string {
		var out []string
		for _, i := range idx {
			out = append(out, strings.TrimSpace(us[i].Text))
		}
		return strings.Join(out, " | ")
	}
	if got := quoted(WithContext(us, 0)); !strings.Contains(got, "To set no_new_privs, use::") || !strings.Contains(got, "PR_SET_NO_NEW_PRIVS") || strings.Contains(got, "later") {
		t.Errorf("the paragraph's context: %s", got)
	}
	last := len(us) - 1
	if got := quoted(WithContext(us, last)); !strings.HasPrefix(got, "functools.lru_cache(maxsize=128, typed=False) | Decorator") {
		t.Errorf("the description's context: %s", got)
	}
	if got := quoted(WithContext(us, 3)); strings.Contains(got, "PR_SET") {
		t.Errorf("a paragraph after a command takes the command as its name: %s", got)
	}
}

// TestRestructuredText: a reStructuredText heading underlined with any
// of its adornment characters is a heading, and a simple table's rows
// are units of their own — a row's continuation line stays with it, the
// borders are no text — so that a row is scored, quoted and cited alone.
func TestRestructuredText(t *testing.T) {
	text := "Minimal requirements\n++++++++++++++++++++\n\n" +
		" ============ ========= =====================\n" +
		" Program      Minimal   Command\n" +
		" ============ ========= =====================\n" +
		" GNU C        5.1       gcc --version\n" +
		" GNU make     3.82      make --version\n" +
		"                        (or gmake --version)\n" +
		" ============ ========= =====================\n\n" +
		"After the table.\n"
	checkUnits(t, text, []wantUnit{
		{Item, "Minimal requirements", " Program      Minimal   Command"},
		{Item, "Minimal requirements", " GNU C        5.1       gcc --version"},
		{Item, "Minimal requirements", " GNU make     3.82      make --version\n                        (or gmake --version)"},
		{Prose, "Minimal requirements", "After the table."},
	})
	for _, b := range []string{"== ==", "=== ===== ==", " ============ ========="} {
		if !tableBorder(strings.TrimSpace(b)) {
			t.Errorf("tableBorder(%q) = false", b)
		}
	}
	for _, b := range []string{"==========", "= =", "== -- ==", "a == b"} {
		if tableBorder(b) {
			t.Errorf("tableBorder(%q) = true", b)
		}
	}
}

// TestSentenceBrokenByADeclaration: a Go doc comment breaks a sentence
// around the declaration it names ("Functions of the form", the func,
// "are considered tests"): the declaration is code, and the sentence's
// end brings its start and the declaration along.
func TestSentenceBrokenByADeclaration(t *testing.T) {
	text := "Functions of the form\n\n\tfunc BenchmarkXxx(*testing.B)\n\nare considered benchmarks, and are executed by the go test command.\n"
	us := Units(text)
	kinds := kindsOf(us)
	if want := []Kind{Prose, Code, Prose}; fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	if got := WithContext(us, 2); fmt.Sprint(got) != "[0 1 2]" {
		t.Errorf("the sentence's end has context %v, want [0 1 2]", got)
	}
	// A paragraph that ends a sentence is no start of one.
	done := Units("Benchmarks are run sequentially.\n\n\tfunc BenchmarkXxx(*testing.B)\n\nare considered benchmarks.\n")
	if got := WithContext(done, 2); fmt.Sprint(got) != "[1 2]" {
		t.Errorf("context %v, want [1 2]: the paragraph before the block ends its own sentence", got)
	}
}

// TestPythonCodeWithoutFences: Python's documentation, its fences gone,
// writes examples as statements and assignments of calls, which are code;
// a sentence that starts "For example," or ends in a colon is not.
func TestPythonCodeWithoutFences(t *testing.T) {
	for text, want := range map[string]Kind{
		"with open('example.csv', newline='') as csvfile:\n    dialect = csv.Sniffer().sniff(csvfile.read(1024))\n    reader = csv.reader(csvfile, dialect)": Code,
		">>> import glob\n>>> glob.glob('*.py')":                                    Code,
		"for row in reader:\n    print(row)":                                        Code,
		"For example, the reader reads each row as a list of strings.":              Prose,
		"The simplest example of reading a CSV file is the following:":              Prose,
		"from each row the reader returns a list, and with that list you can work.": Prose,
	} {
		if us := Units(text); len(us) != 1 || us[0].Kind != want {
			t.Errorf("Units(%q) = %+v, want one unit of kind %v", text, us, want)
		}
	}
}

// TestLongFencedBlockPiecesAreFenced: a fenced block longer than a unit
// is cut into pieces that are each fenced, so that a piece quoted alone
// (an excerpt keeps some, drops others) closes what it opens, and the
// text after it stays text; no piece is a fence alone, wherever the cut
// falls.
func TestLongFencedBlockPiecesAreFenced(t *testing.T) {
	for lines := 190; lines < 210; lines++ {
		var b strings.Builder
		// Units before the block are left as they are.
		b.WriteString("A paragraph before the block.\n\n```\nshort()\n```\n\n```go\n")
		for i := range lines {
			fmt.Fprintf(&b, "\t// step %6d\n", i)
		}
		b.WriteString("```\n\n## Next\n\nThe text after the block.\n")
		us := Units(b.String())
		var code []Unit
		for _, u := range us {
			if u.Kind == Code {
				code = append(code, u)
			}
		}
		if us[0].Text != "A paragraph before the block." || code[0].Text != "```\nshort()\n```" {
			t.Fatalf("%d lines: the units before the block changed: %q, %q", lines, us[0].Text, code[0].Text)
		}
		code = code[1:]
		if len(code) < 2 {
			t.Fatalf("%d lines: the long block is %d unit(s), want it cut", lines, len(code))
		}
		for i, u := range code {
			body := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(u.Text, "```go"), "```"))
			if !strings.HasPrefix(u.Text, "```") || !strings.HasSuffix(u.Text, "```") || strings.Count(u.Text, "```") != 2 || body == "" {
				t.Errorf("%d lines: piece %d is not a fenced block with a body: %.40q … %.40q", lines, i, u.Text, u.Text[max(0, len(u.Text)-40):])
			}
		}
		if last := us[len(us)-1]; last.Kind != Prose || last.Heading != "Next" {
			t.Errorf("%d lines: the text after the block is %+v", lines, last)
		}
	}
}

// kindsOf returns the kinds of us, in order.
func kindsOf(us []Unit) []Kind {
	var kinds []Kind
	for _, u := range us {
		kinds = append(kinds, u.Kind)
	}
	return kinds
}

// TestRSTMarkupIsNoText: a reStructuredText directive with at most one
// argument and its options, and a target label, are no units; a code
// directive makes the paragraph before it the code's lead, and Cut keeps
// the directive between them. A directive with text of its own stays.
func TestRSTMarkupIsNoText(t *testing.T) {
	text := `Sandboxing
==========

.. _landlock_example:

.. kernel-doc:: security/landlock/syscalls.c
    :identifiers: sys_landlock_restrict_self

The current thread is now ready to sandbox itself with the ruleset.

.. code-block:: c

    if (landlock_restrict_self(ruleset_fd, 0)) {
        return 1;
    }

.. note:: Landlock rules are inherited by children.
`
	units := Units(text)
	var texts []string
	for _, u := range units {
		texts = append(texts, strings.SplitN(u.Text, "\n", 2)[0])
	}
	want := []string{
		"The current thread is now ready to sandbox itself with the ruleset.",
		"    if (landlock_restrict_self(ruleset_fd, 0)) {",
		".. note:: Landlock rules are inherited by children.",
	}
	if !slices.Equal(texts, want) {
		t.Fatalf("units %q, want %q", texts, want)
	}
	if !units[0].Lead() || units[1].Kind != Code {
		t.Errorf("the paragraph before a code directive: lead %v; the block: kind %v", units[0].Lead(), units[1].Kind)
	}
	if ctx := WithContext(units, 0); !slices.Equal(ctx, []int{0, 1}) {
		t.Errorf("the paragraph's context is %v, want it with its block", ctx)
	}
	// A text rebuilt from the units, the directive written back after its
	// paragraph (as internal/extractive does), splits the same way.
	var b strings.Builder
	for _, u := range units {
		b.WriteString(u.Text + "\n\n")
		if d := u.Directive(); d != "" {
			b.WriteString(d + "\n\n")
		}
	}
	if again := Units(b.String()); len(again) != len(units) || !again[0].Lead() || again[1].Kind != Code {
		t.Errorf("split again, the units are %+v", again)
	}
	// A directive leads only into the block right after it under its
	// heading; a version's is text.
	gap := Units("Build it so.\n\n.. code-block:: sh\n\nOther\n=====\n\n    make\n\n.. versionadded:: 3.2\n")
	if len(gap) != 3 || gap[0].Lead() || gap[0].Directive() != "" || gap[2].Text != ".. versionadded:: 3.2" {
		t.Errorf("a directive before another heading, then a version: %+v", gap)
	}
	long := text + strings.Repeat("\nAn unrelated paragraph about something else entirely, at length.\n", 40)
	cut := Cut(long, "", "How does a thread sandbox itself with a ruleset?", 600)
	if !strings.Contains(cut, "with the ruleset.\n\n.. code-block:: c\n\n    if (landlock_restrict_self") {
		t.Errorf("the cut lost the directive between the paragraph and its block:\n%s", cut)
	}
}
