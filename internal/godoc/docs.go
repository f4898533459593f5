package godoc

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// docURLs are the addresses go.dev publishes the files of GOROOT/doc
// under; the copies declare them.
var docURLs = map[string]string{
	"go_spec.html": "https://go.dev/ref/spec",
	"go_mem.html":  "https://go.dev/ref/mem",
	"asm.html":     "https://go.dev/doc/asm",
	"godebug.md":   "https://go.dev/doc/godebug",
}

// copyDocs copies the files of GOROOT/doc into dir/doc, keeping their
// paths, and makes the pages go.dev publishes declare their address: an
// HTML page gets a canonical link, a Markdown file a url in its front
// matter. It returns the files and bytes written; a distribution without
// a doc folder has none.
func copyDocs(ctx context.Context, goroot, dir string) (int, int64, error) {
	src := filepath.Join(goroot, "doc")
	var files int
	var n int64
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == src && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		if !d.Type().IsRegular() {
			return nil // folders, and links that could lead out of GOROOT
		}
		rel, err := filepath.Rel(goroot, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(b)
		if u, ok := docURLs[filepath.ToSlash(rel)[len("doc/"):]]; ok {
			text = declareURL(text, u, strings.HasSuffix(path, ".md"))
		}
		if err := writeFile(filepath.Join(dir, rel), text); err != nil {
			return err
		}
		files++
		n += int64(len(text))
		return nil
	})
	if err != nil {
		return files, n, fmt.Errorf("godoc: copy %s: %w", src, err)
	}
	return files, n, nil
}

// declareURL makes a document declare u as its URL: in Markdown, a url
// line in its YAML front matter (added if it has none); in HTML, a
// canonical link at its top.
func declareURL(text, u string, markdown bool) string {
	if !markdown {
		return `<link rel="canonical" href="` + u + `">` + "\n" + text
	}
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		return "---\nurl: " + u + "\n" + rest
	}
	return "---\nurl: " + u + "\n---\n\n" + text
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
