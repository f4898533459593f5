package godoc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch/internal/extract"
	"github.com/deepresearch/deepresearch/internal/golden"
)

// The environment that makes the test binary a child process of
// TestCachedProcesses: Cached(GOROOT, cache) from these variables, the
// folder printed on stdout.
const (
	helperRoot  = "GODOC_TEST_CACHED_ROOT"
	helperCache = "GODOC_TEST_CACHED_CACHE"
)

func TestMain(m *testing.M) {
	if root := os.Getenv(helperRoot); root != "" {
		dir, err := Cached(context.Background(), root, os.Getenv(helperCache))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(dir)
		os.Exit(0)
	}
	code := m.Run()
	if written.dir != "" {
		os.RemoveAll(written.dir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// testGOROOT is the Go distribution the go command on the path uses.
func testGOROOT() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// goroot returns the real Go distribution, or skips a test that needs its
// sources.
func goroot(tb testing.TB) string {
	tb.Helper()
	root := testGOROOT()
	if !isDir(filepath.Join(root, "src", "bufio")) || !isDir(filepath.Join(root, "src", "cmd", "go")) {
		tb.Skipf("no Go sources under %q", root)
	}
	return root
}

// written is the real distribution's documentation, written once for the
// tests that read it.
var written struct {
	once sync.Once
	dir  string
	st   Stats
	err  error
}

func writeReal(t *testing.T) (string, Stats) {
	t.Helper()
	root := goroot(t)
	written.once.Do(func() {
		written.dir, written.err = os.MkdirTemp("", "godoc-test-")
		if written.err == nil {
			written.st, written.err = Write(context.Background(), root, written.dir)
		}
	})
	if written.err != nil {
		t.Fatal(written.err)
	}
	return written.dir, written.st
}

// TestWrite checks the documents written from the real GOROOT: what a
// newcomer's "how do I" question needs is there (bufio's Scanner and its
// line-reading example, with its code; go help testflag's -race), each
// document declares its URL, and what is left out is left out.
func TestWrite(t *testing.T) {
	dir, st := writeReal(t)
	if st.Packages < 150 || st.Examples < 500 || st.Commands < 40 || st.Docs < 5 || st.Bytes < 1<<20 {
		t.Errorf("Write = %+v, want the whole standard library, its examples, cmd/go's help and GOROOT/doc", st)
	}
	tests := []struct {
		file, title, url string
		contains         []string
	}{
		{"pkg/bufio.md", "Package bufio (bufio)", "https://pkg.go.dev/bufio", []string{
			"## type Scanner {#Scanner}\n\nScanner provides a convenient interface for reading data",
			"### func NewScanner {#NewScanner}",
			"### func (*Scanner) Scan {#Scanner.Scan}\n\nScan advances the Scanner",
			"## var ErrTooLong, ErrNegativeAdvance, ErrAdvanceTooFar, ErrBadReadCount {#ErrTooLong}",
			// ExampleScanner_lines, as a whole program.
			"### Example Scanner (lines) {#example-Scanner-Lines}\n\nThe simplest use of a Scanner, to read standard input as a set of lines.\n\n```go\npackage main\n",
			"\tscanner := bufio.NewScanner(os.Stdin)\n\tfor scanner.Scan() {\n\t\tfmt.Println(scanner.Text())",
			// ExampleScanner_words's output.
			"Output:\n\n```\n15\n```\n",
		}},
		{"pkg/net/http.md", "Package http (net/http)", "https://pkg.go.dev/net/http", []string{"## type Client {#Client}", "Timeout"}},
		{"pkg/os.md", "Package os (os)", "https://pkg.go.dev/os", []string{"## func ReadFile {#ReadFile}", "### Example ReadFile {#example-ReadFile}"}},
		{"pkg/time.md", "Package time (time)", "https://pkg.go.dev/time", []string{"## const Nanosecond, Microsecond, Millisecond, Second, Minute, Hour {#Nanosecond}", "### func (Duration) Hours {#Duration.Hours}", "#### Example Duration.Hours {#example-Duration.Hours}"}},
		{"cmd/go/go.md", "go: the go command", "https://pkg.go.dev/cmd/go", []string{"Go is a tool for managing Go source code."}},
		{"cmd/go/testflag.md", "go help testflag: Testing flags", "https://pkg.go.dev/cmd/go#hdr-Testing_flags", []string{"-race", "-run regexp"}},
		{"cmd/go/test.md", "go test: Test packages", "https://pkg.go.dev/cmd/go#hdr-Test_packages", []string{"'Go test' automates testing the packages named by the import paths."}},
		{"cmd/go/build.md", "go build: Compile packages and dependencies", "https://pkg.go.dev/cmd/go#hdr-Compile_packages_and_dependencies", []string{"\t-race\n"}},
		{"cmd/go/run.md", "go run: Compile and run Go program", "https://pkg.go.dev/cmd/go#hdr-Compile_and_run_Go_program", nil},
		{"cmd/go/mod.md", "go mod: Module maintenance", "https://pkg.go.dev/cmd/go#hdr-Module_maintenance", nil},
		{"cmd/go/mod-download.md", "go mod download: Download modules to local cache", "https://pkg.go.dev/cmd/go#hdr-Download_modules_to_local_cache", nil},
		{"cmd/go/mod-vendor.md", "go mod vendor: Make vendored copy of dependencies", "https://pkg.go.dev/cmd/go#hdr-Make_vendored_copy_of_dependencies", nil},
		{"cmd/go/work-vendor.md", "go work vendor: Make vendored copy of dependencies", "https://pkg.go.dev/cmd/go#hdr-Make_vendored_copy_of_dependencies-1", nil},
		{"cmd/go/get.md", "go get: Add dependencies to current module and install them", "https://pkg.go.dev/cmd/go#hdr-Add_dependencies_to_current_module_and_install_them", nil},
		{"cmd/go/install.md", "go install: Compile and install packages and dependencies", "https://pkg.go.dev/cmd/go#hdr-Compile_and_install_packages_and_dependencies", nil},
		{"cmd/go/env.md", "go env: Print Go environment information", "https://pkg.go.dev/cmd/go#hdr-Print_Go_environment_information", nil},
		{"cmd/go/packages.md", "go help packages: Package lists and patterns", "https://pkg.go.dev/cmd/go#hdr-Package_lists_and_patterns", nil},
		{"cmd/go/go.mod.md", "go help go.mod: The go.mod file", "https://pkg.go.dev/cmd/go#hdr-The_go_mod_file", nil},
		// A heading that is neither a command nor a topic is a section of
		// the page before it.
		{"cmd/go/gopath.md", "go help gopath: GOPATH environment variable", "https://pkg.go.dev/cmd/go#hdr-GOPATH_environment_variable", []string{"## Vendor Directories {#hdr-Vendor_Directories}"}},
		{"doc/go_spec.html", "The Go Programming Language Specification", "https://go.dev/ref/spec", nil},
		{"doc/go_mem.html", "The Go Memory Model", "https://go.dev/ref/mem", nil},
		{"doc/asm.html", "A Quick Guide to Go's Assembler", "https://go.dev/doc/asm", nil},
		{"doc/godebug.md", "Go, Backwards Compatibility, and GODEBUG", "https://go.dev/doc/godebug", nil},
		{"doc/README.md", "Release Notes", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(tt.file)))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.contains {
				if !bytes.Contains(b, []byte(s)) {
					t.Errorf("no %q", s)
				}
			}
			d := extract.Extract(tt.file, string(b), extract.FormatOf(tt.file))
			if d.Title != tt.title || d.URL != tt.url {
				t.Errorf("extracted title %q, URL %q; want %q, %q", d.Title, d.URL, tt.title, tt.url)
			}
		})
	}
	for _, gone := range []string{"pkg/internal", "pkg/cmd", "pkg/vendor", "pkg/bufio/testdata", "pkg/builtin/testdata"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s written: %v", gone, err)
		}
	}
}

// TestWriteDeterministic writes the real distribution's documentation
// twice: the two folders are byte-identical.
func TestWriteDeterministic(t *testing.T) {
	a, _ := writeReal(t)
	b := t.TempDir()
	if _, err := Write(t.Context(), goroot(t), b); err != nil {
		t.Fatal(err)
	}
	fa, fb := golden.Tree(t, a), golden.Tree(t, b)
	if len(fa) != len(fb) {
		t.Fatalf("%d files, then %d", len(fa), len(fb))
	}
	for name, data := range fa {
		if !bytes.Equal(data, fb[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}

// miniGOROOT copies a few real packages, cmd/go's alldocs.go, GOROOT/doc
// and VERSION into a folder laid out as a Go distribution: the real
// inputs, small enough to write many times.
func miniGOROOT(t *testing.T) string {
	t.Helper()
	root := goroot(t)
	dst := t.TempDir()
	for _, p := range []string{"VERSION", "doc", "src/bufio", "src/unicode/utf8", "src/cmd/go/alldocs.go"} {
		from := filepath.Join(root, filepath.FromSlash(p))
		fi, err := os.Stat(from)
		if err != nil {
			t.Skip(err)
		}
		to := filepath.Join(dst, filepath.FromSlash(p))
		if fi.IsDir() {
			err = os.CopyFS(to, os.DirFS(from))
		} else {
			var b []byte
			if b, err = os.ReadFile(from); err == nil {
				err = writeFile(to, string(b))
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestCached checks the cached folder: generators that start at once
// (goroutines here; processes rename the same way) all return the same
// complete folder and leave no temporary folder; a later call writes
// nothing; another distribution gets another folder.
func TestCached(t *testing.T) {
	root := miniGOROOT(t)
	cache := filepath.Join(t.TempDir(), "cache")
	want := t.TempDir()
	if _, err := Write(t.Context(), root, want); err != nil {
		t.Fatal(err)
	}
	const n = 4
	dirs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { dirs[i], errs[i] = Cached(t.Context(), root, cache) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || dirs[i] != dirs[0] {
			t.Fatalf("Cached #%d = %q, %v; #0 = %q", i, dirs[i], errs[i], dirs[0])
		}
	}
	dir := dirs[0]
	if !strings.HasPrefix(filepath.Base(dir), "godoc-"+goVersion(root)+"-") {
		t.Errorf("Cached = %s, want godoc-<version>-<hash>", dir)
	}
	got, w := golden.Tree(t, dir), golden.Tree(t, want)
	if len(got) != len(w) || len(got) < 20 {
		t.Errorf("cached folder has %d files, Write writes %d", len(got), len(w))
	}
	for name, data := range w {
		if !bytes.Equal(data, got[name]) {
			t.Errorf("cached %s differs from what Write writes", name)
		}
	}
	entries, err := os.ReadDir(cache)
	if err != nil || len(entries) != 1 {
		t.Errorf("cache folder holds %v (%v), want the one folder and no temporary ones", entries, err)
	}

	// Idempotent: found, not written again.
	probe := filepath.Join(dir, "pkg", "bufio.md")
	before, err := os.Stat(probe)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Cached(t.Context(), root, cache)
	if err != nil || again != dir {
		t.Fatalf("Cached again = %q, %v; want %q", again, err, dir)
	}
	if after, err := os.Stat(probe); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("Cached rewrote %s", probe)
	}

	other := miniGOROOT(t)
	od, err := Cached(t.Context(), other, cache)
	if err != nil || od == dir {
		t.Errorf("Cached of another distribution = %q, %v; want a folder of its own", od, err)
	}
}

// TestCachedProcesses starts three processes that each need the cached
// folder of one distribution at once: each gets the same folder, complete,
// and no temporary folder is left; a temporary folder a killed process
// left an hour ago is removed, a recent one (a writer still at work) kept.
func TestCachedProcesses(t *testing.T) {
	root := miniGOROOT(t)
	cache := t.TempDir()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	want := cachedName(abs)
	stale := filepath.Join(cache, "."+want+"-tmp111")
	fresh := filepath.Join(cache, "."+want+"-tmp222")
	for _, d := range []string{stale, fresh} {
		if err := os.MkdirAll(filepath.Join(d, "pkg"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleTemp)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}

	const n = 3
	outs := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), helperRoot+"="+root, helperCache+"="+cache)
			outs[i], errs[i] = cmd.Output()
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || !bytes.Equal(outs[i], outs[0]) {
			t.Fatalf("process %d: %q, %v; process 0: %q", i, outs[i], errs[i], outs[0])
		}
	}
	dir := strings.TrimSpace(string(outs[0]))
	if filepath.Base(dir) != want || !fileExists(filepath.Join(dir, "pkg", "bufio.md")) {
		t.Errorf("processes returned %q, want %s with pkg/bufio.md", dir, want)
	}
	entries, _ := os.ReadDir(cache)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 || !slices.Contains(names, want) || !slices.Contains(names, filepath.Base(fresh)) {
		t.Errorf("cache folder holds %v, want %s and the recent temporary folder %s only", names, want, filepath.Base(fresh))
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestCachedErrors checks that failures name what and where, and leave
// no folder behind.
func TestCachedErrors(t *testing.T) {
	root := miniGOROOT(t)
	t.Run("canceled", func(t *testing.T) {
		cache := t.TempDir()
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := Cached(ctx, root, cache); !errors.Is(err, context.Canceled) {
			t.Errorf("Cached with a canceled context = %v, want context.Canceled", err)
		}
		if entries, _ := os.ReadDir(cache); len(entries) != 0 {
			t.Errorf("a canceled Cached left %v", entries)
		}
	})
	t.Run("cache is a file", func(t *testing.T) {
		cache := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(cache, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Cached(t.Context(), root, cache)
		if err == nil || !strings.Contains(err.Error(), cache) {
			t.Errorf("Cached into a file = %v, want an error naming %s", err, cache)
		}
	})
}

// BenchmarkWrite writes the real distribution's documentation: the
// first run's cost before indexing.
func BenchmarkWrite(b *testing.B) {
	root := testGOROOT()
	if !isDir(filepath.Join(root, "src", "bufio")) {
		b.Skip("no Go sources")
	}
	b.ReportAllocs()
	var st Stats
	for b.Loop() {
		var err error
		if st, err = Write(b.Context(), root, b.TempDir()); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(st.Bytes)
	b.ReportMetric(float64(st.Packages+st.Commands+st.Docs), "documents")
	b.ReportMetric(float64(st.Examples), "examples")
}
