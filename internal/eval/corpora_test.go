package eval_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/eval"
)

// TestMissingSourceIsErrMissing: a corpus whose Debian package is not
// installed fails with ErrMissing, which the evaluation skips (except
// under CI=true).
func TestMissingSourceIsErrMissing(t *testing.T) {
	nowhere := filepath.Join(t.TempDir(), "absent")
	ctx := context.Background()
	for name, write := range map[string]func() error{
		"foldoc":     func() error { _, err := eval.WriteFOLDOC(ctx, nowhere, t.TempDir()); return err },
		"python":     func() error { _, err := eval.WritePythonDocs(ctx, nowhere, t.TempDir()); return err },
		"postgresql": func() error { _, err := eval.WritePostgresDocs(ctx, nowhere, t.TempDir()); return err },
		"manpages": func() error {
			_, err := eval.WriteManPages(ctx, nowhere, []string{"manpages"}, t.TempDir())
			return err
		},
	} {
		if err := write(); !errors.Is(err, eval.ErrMissing) {
			t.Errorf("%s: err = %v, want ErrMissing", name, err)
		}
	}
}

// TestWriteFOLDOC reads a dictionary in dictd's format (an index of
// headword, base-64 offset and length; gzip-compressed data, as dictzip
// writes it): one file per entry, named after the entry's own headword,
// synonyms pointing at one entry written once, the database's own entries
// left out.
func TestWriteFOLDOC(t *testing.T) {
	entries := []string{
		"00-database-info\n\n   About this dictionary.\n",
		"currying\n\n   Turning an uncurried function into a {curried function}.\n",
		"Transmission Control Protocol\nTCP\n\n   <networking, protocol> (TCP) The most common transport protocol.\n",
		"a/b testing\n\n   Comparing two variants.\n",
	}
	var data bytes.Buffer
	var index strings.Builder
	b64 := func(n int) string {
		const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
		if n == 0 {
			return "A"
		}
		s := ""
		for ; n > 0; n /= 64 {
			s = string(digits[n%64]) + s
		}
		return s
	}
	heads := [][]string{{"00-database-info"}, {"currying"}, {"TCP", "Transmission Control Protocol"}, {"a/b testing"}}
	for i, e := range entries {
		for _, h := range heads[i] {
			index.WriteString(h + "\t" + b64(data.Len()) + "\t" + b64(len(e)) + "\n")
		}
		data.WriteString(e)
	}
	dir := t.TempDir()
	base := filepath.Join(dir, "dict")
	if err := os.WriteFile(base+".index", []byte(index.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data.Bytes())
	zw.Close()
	if err := os.WriteFile(base+".dict.dz", gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	st, err := eval.WriteFOLDOC(context.Background(), base, out)
	if err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(out, "*"))
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	if got := strings.Join(names, "|"); got != "Transmission Control Protocol.txt|a_b testing.txt|currying.txt" || st.Docs != 3 {
		t.Errorf("files %q (%d documents)", got, st.Docs)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "currying.txt")); string(b) != entries[1] {
		t.Errorf("currying.txt = %q, want the entry as the dictionary holds it", b)
	}
	os.WriteFile(base+".index", []byte("currying\tA\t!!\n"), 0o644)
	if _, err := eval.WriteFOLDOC(context.Background(), base, t.TempDir()); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a bad index line: err = %v, want one naming line 1", err)
	}
}
