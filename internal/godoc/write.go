// Package godoc writes the documentation of a Go distribution as a folder
// of documents for the corpus index: the standard library's package
// documentation with its examples, the go command's help, and the
// distribution's doc folder. It is the default corpus (see
// corpus.DefaultCorpus) and the Go corpus of the evaluation
// (internal/eval).
//
// Every document it writes declares its canonical URL (Markdown front
// matter "url:", an HTML canonical link), which the corpus index reports
// instead of the file:// URL: https://pkg.go.dev/bufio for a package,
// https://pkg.go.dev/cmd/go#hdr-Test_packages for a go command topic,
// https://go.dev/ref/spec for the specification.
//
// The output depends only on the distribution and the platform this
// program was built for: two writes of one GOROOT are byte-identical.
package godoc

import (
	"context"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/sourcegraph/conc/pool"
)

// Stats says what Write wrote.
type Stats struct {
	Packages int   // package documents, pkg/<import path>.md
	Examples int   // examples in them
	Commands int   // go command help documents, cmd/go/<topic>.md
	Docs     int   // files copied from GOROOT/doc, doc/…
	Bytes    int64 // bytes written
}

// Write writes the documentation of the Go distribution at goroot into
// dir, which it creates if needed:
//
//   - pkg/<import path>.md, one Markdown document per documented
//     standard-library package (commands, internal and vendored packages
//     and testdata left out): the package comment, then a section for
//     each exported constant, variable, function, type and method with a
//     doc comment ("## type Scanner", "### func (*Scanner) Scan"), and the
//     package's examples (go/doc's, from its test files: their code in a
//     fenced block, then their output), each beside what it exemplifies
//     ("### Example Scanner (lines)"). Sections carry pkg.go.dev's anchors
//     as Markdown heading IDs ({#Scanner.Scan}, {#example-Scanner-Lines}).
//     Only the files this program's platform builds are read (see
//     buildContext), so the output is the same on every run.
//   - cmd/go/<topic>.md, the text `go help <topic>` prints, for each
//     command ("build", "test", "mod-download") and help topic
//     ("testflag", "packages"), from the doc comment of
//     GOROOT/src/cmd/go/alldocs.go; cmd/go/go.md is `go help` itself. The
//     go command is never run.
//   - doc/…, a copy of GOROOT/doc; the pages go.dev publishes declare
//     their address there (go_spec.html, go_mem.html, asm.html,
//     godebug.md).
//
// A document's path under dir is its ID in the corpus index.
//
// Packages are parsed in parallel, GOMAXPROCS at a time; Write owns and
// waits for those goroutines. It stops at the first error, or when ctx is
// done (returning context.Cause(ctx)); dir may then hold part of the
// output. Cost: it parses the standard library's Go files for this
// platform and the test files that hold examples (at most 22 MB of
// source), about 0.7 s of CPU and 216 MB allocated in all for Go 1.26
// (BenchmarkWrite; docs/performance.md).
func Write(ctx context.Context, goroot, dir string) (Stats, error) {
	var st Stats
	src := filepath.Join(goroot, "src")
	pkgs, err := listPackages(ctx, src)
	if err != nil {
		return st, fmt.Errorf("godoc: list packages under %s: %w", src, err)
	}
	ctxt := buildContext()
	var packages, examples atomic.Int64
	var bytes atomic.Int64
	p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError().WithMaxGoroutines(runtime.GOMAXPROCS(0))
	for _, rel := range pkgs {
		p.Go(func(ctx context.Context) error {
			if err := ctx.Err(); err != nil {
				return context.Cause(ctx)
			}
			text, n, ok, err := packageDoc(ctxt, filepath.Join(src, filepath.FromSlash(rel)), rel)
			if err != nil {
				return fmt.Errorf("godoc: package %s in %s: %w", rel, src, err)
			}
			if !ok {
				return nil
			}
			if err := writeFile(filepath.Join(dir, "pkg", filepath.FromSlash(rel)+".md"), text); err != nil {
				return fmt.Errorf("godoc: %w", err)
			}
			packages.Add(1)
			examples.Add(int64(n))
			bytes.Add(int64(len(text)))
			return nil
		})
	}
	if err := p.Wait(); err != nil {
		if ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		return st, err
	}
	st.Packages, st.Examples, st.Bytes = int(packages.Load()), int(examples.Load()), bytes.Load()

	cmds, n, err := writeGoHelp(goroot, dir)
	if err != nil {
		return st, err
	}
	st.Commands, st.Bytes = cmds, st.Bytes+n
	docs, n, err := copyDocs(ctx, goroot, dir)
	st.Docs, st.Bytes = docs, st.Bytes+n
	return st, err
}

// buildContext is the build context whose files are documented: the
// platform this program was built for, cgo on (so that the packages that
// have cgo and pure-Go variants are documented from one, whatever
// CGO_ENABLED says), and no user build tags.
func buildContext() *build.Context {
	c := build.Default
	c.GOOS, c.GOARCH = runtime.GOOS, runtime.GOARCH
	c.CgoEnabled = true
	c.BuildTags = nil
	return &c
}

// listPackages returns the folders under src (slash-separated, relative)
// that may hold a documented standard-library package, in lexical order.
func listPackages(ctx context.Context, src string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		if !d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		name := d.Name()
		if rel == "cmd" || name == "internal" || name == "vendor" || name == "testdata" ||
			strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			return filepath.SkipDir
		}
		out = append(out, rel)
		return nil
	})
	return out, err
}

// writeFile writes text to path, creating its folder.
func writeFile(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}
