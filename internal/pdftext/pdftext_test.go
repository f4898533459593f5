package pdftext

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch/internal/testpdf"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	mimeSpec   = testpdf.MIMESpec
	fontconfig = testpdf.Fontconfig
	fixtures   = "../extract/testdata/formats/"
)

// DebianPDF returns the bytes of a PDF a Debian package installs.
func DebianPDF(t testing.TB, path string) []byte { return testpdf.Read(t, path) }

var reader = sync.OnceValue(func() *Reader { return New(Config{}) })

func read(t *testing.T, data []byte) (Document, error) {
	t.Helper()
	return reader().Read(context.Background(), data)
}

func TestDebianPDFs(t *testing.T) {
	defer reader().Close()
	tests := []struct {
		name  string
		path  string
		pages int
		page  int    // 1-based
		text  string // on that page, as printed
	}{
		{"shared-mime-info spec", mimeSpec, 17, 4, "The default weight value is\n50, and the maximum is 100."},
		{"fontconfig user manual", fontconfig, 15, 1, "Fontconfig is a library designed to provide system-wide font configuration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := read(t, DebianPDF(t, tt.path))
			if err != nil {
				t.Fatal(err)
			}
			if len(doc.Pages) != tt.pages || doc.Truncated {
				t.Fatalf("%d pages (truncated %v), want %d", len(doc.Pages), doc.Truncated, tt.pages)
			}
			if !strings.Contains(doc.Pages[tt.page-1], tt.text) {
				t.Errorf("page %d lacks %q:\n%s", tt.page, tt.text, doc.Pages[tt.page-1])
			}
			if strings.Contains(strings.Join(doc.Pages, ""), "\r") {
				t.Error("a page keeps CR line ends")
			}
		})
	}
}

func TestReadFailures(t *testing.T) {
	fixture := func(name string) []byte {
		data, err := os.ReadFile(fixtures + name)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	plain := fixture("plain.pdf")
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"encrypted", fixture("encrypted.pdf"), ErrEncrypted},
		{"truncated", plain[:200], ErrMalformed},
		{"not a PDF", []byte("<html>hello</html>"), ErrMalformed},
		{"empty", nil, ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := read(t, tt.data)
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
		})
	}
	doc, err := read(t, plain)
	if err != nil || len(doc.Pages) != 1 || !strings.Contains(doc.Pages[0], "harbour master") {
		t.Errorf("the plain PDF the encrypted one was made from: %+v, %v", doc, err)
	}
	doc, err = read(t, fixture("scan.pdf"))
	if err != nil || len(doc.Pages) != 1 || strings.TrimSpace(doc.Pages[0]) != "" {
		t.Errorf("a page without a text layer: %+v, %v", doc, err)
	}
}

// A read whose context ends stops with the context's cause, mid-call if
// need be, and the Reader reads the next PDF as if nothing happened.
func TestReadCancelled(t *testing.T) {
	data := DebianPDF(t, fontconfig)
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("the user gave up")
	cancel(cause)
	if _, err := read(t, data); err != nil {
		t.Fatal(err)
	}
	if _, err := reader().Read(ctx, data); !errors.Is(err, cause) {
		t.Errorf("read with a done context: %v, want its cause", err)
	}
	for range 3 {
		ctx, cancel := context.WithCancelCause(context.Background())
		go cancel(cause) // at any point of the read
		doc, err := reader().Read(ctx, data)
		if err != nil && !errors.Is(err, cause) || err == nil && len(doc.Pages) != 15 {
			t.Errorf("read cancelled at some point: %d pages, %v", len(doc.Pages), err)
		}
	}
	if doc, err := read(t, data); err != nil || len(doc.Pages) != 15 {
		t.Errorf("read after cancelled ones: %d pages, %v", len(doc.Pages), err)
	}
}

func TestMaxText(t *testing.T) {
	r := New(Config{MaxText: 100})
	defer r.Close()
	doc, err := r.Read(context.Background(), DebianPDF(t, mimeSpec))
	if err != nil {
		t.Fatal(err)
	}
	if !doc.Truncated || len(doc.Pages) >= 17 {
		t.Errorf("%d pages read past a 100-byte text cap (truncated %v)", len(doc.Pages), doc.Truncated)
	}
}

// The document information's Author is read: Debian's shared-mime-info
// spec, its empty Author written in place (same length, so every offset
// holds).
func TestAuthor(t *testing.T) {
	defer reader().Close()
	data := DebianPDF(t, mimeSpec)
	const empty, named = "/Author()/Title()/Subject()", "/Author(Ann Lee Smith)     "
	if !bytes.Contains(data, []byte(empty)) {
		t.Skip("the PDF's document information is not as expected")
	}
	doc, err := read(t, bytes.ReplaceAll(data, []byte(empty), []byte(named)))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Author != "Ann Lee Smith" {
		t.Errorf("Author = %q", doc.Author)
	}
	if doc, err := read(t, data); err != nil || doc.Author != "" {
		t.Errorf("an empty Author: %q, %v", doc.Author, err)
	}
}
