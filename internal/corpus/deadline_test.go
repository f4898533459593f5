package corpus

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/internal/hostile"
)

// TestSyncFileDeadline: a binary file whose time is up (fileTimeout, here
// a deadline already past) is skipped with that reason, and the Sync goes
// on with the next file: text files are indexed.
func TestSyncFileDeadline(t *testing.T) {
	fileDeadline = func(ctx context.Context) (context.Context, context.CancelFunc) {
		return context.WithDeadlineCause(ctx, time.Unix(0, 0), errFileTimeout)
	}
	t.Cleanup(func() {
		fileDeadline = func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeoutCause(ctx, fileTimeout, errFileTimeout)
		}
	})
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"a.pdf":  hostile.PDFText("A page."),
		"b.ods":  hostile.ODSRepeated(),
		"c.epub": hostile.EPUBTitle(10),
		"d.csv":  []byte("a,b\n1,2\n"),
		"e.md":   []byte("# E\n\nText.\n"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := openIndex(t).Sync(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := "reading the file took longer than 1m0s"
	for _, s := range st.Skips {
		if s.Reason != want {
			t.Errorf("%s: skip reason %q, want %q", s.Path, s.Reason, want)
		}
	}
	if st.Skipped != 4 || st.Added != 1 {
		t.Errorf("Sync = %+v, want the four binary files skipped and e.md added", st)
	}
}
