// Package testpdf gives tests the real PDFs that Debian packages ship:
// documentation written by TeX, read by the PDF tests of several
// packages. .ci/run installs the packages.
package testpdf

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"strings"
	"testing"
)

// The PDFs, by the package that installs them.
const (
	// MIMESpec is the Shared MIME-info Database specification (Debian's
	// shared-mime-info): 17 pages; page 4, and no other, says "The default
	// weight value is 50, and the maximum is 100." of glob rules.
	MIMESpec = "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"
	// Fontconfig is the fontconfig user's manual (Debian's fontconfig),
	// gzipped: 15 pages.
	Fontconfig = "/usr/share/doc/fontconfig/fontconfig-user.pdf.gz"
)

// Read returns the bytes of the PDF at path, gunzipped when the name ends
// in .gz. A missing file fails the test, saying to install its package.
func Read(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: install the Debian package that ships it (.ci/run does)", err)
	}
	if !strings.HasSuffix(path, ".gz") {
		return data
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if data, err = io.ReadAll(zr); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return data
}
