package extract

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"github.com/deepresearch/deepresearch/internal/hostile"
)

func TestGzipped(t *testing.T) {
	tests := []struct {
		name, inner string
		ok          bool
	}{
		{"manual.pdf.gz", "manual.pdf", true},
		{"NEWS.md.GZ", "NEWS.md", true},
		{"notes.txt.gz", "notes.txt", true},
		{"data.json.gz", "data.json", true},
		{"guide.odt.gz", "guide.odt", true},
		{"archive.tar.gz", "archive.tar", false}, // no document format inside
		{"plain.gz", "plain", false},
		{"manual.pdf", "manual.pdf", false},
		{"gz", "gz", false},
	}
	for _, tt := range tests {
		inner, ok := Gzipped(tt.name)
		if ok != tt.ok || (ok && inner != tt.inner) {
			t.Errorf("Gzipped(%q) = %q, %v; want %q, %v", tt.name, inner, ok, tt.inner, tt.ok)
		}
	}
}

// gz compresses each of members as one gzip member, in order.
func gz(members ...[]byte) []byte {
	var out []byte
	for _, m := range members {
		out = append(out, hostile.Gzip(m)...)
	}
	return out
}

func TestGunzip(t *testing.T) {
	text := []byte("# Cable ships\n\nThe Monarch repaired the 1858 cable.\n")
	whole := gz(text)
	corrupt := bytes.Clone(whole)
	corrupt[len(corrupt)-8] ^= 0xff // the CRC-32 of the member
	tests := []struct {
		name  string
		data  []byte
		limit int
		want  string
		err   error
	}{
		{"one member", whole, 1 << 20, string(text), nil},
		{"two members, read as one file", gz(text, []byte("More.\n")), 1 << 20, string(text) + "More.\n", nil},
		{"exactly the limit", whole, len(text), string(text), nil},
		{"one byte past the limit", whole, len(text) - 1, "", ErrTooLarge},
		{"not gzip", text, 1 << 20, "", ErrMalformed},
		{"truncated", whole[:len(whole)/2], 1 << 20, "", ErrMalformed},
		{"wrong checksum", corrupt, 1 << 20, "", ErrMalformed},
		{"empty", nil, 1 << 20, "", ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Gunzip(tt.data, tt.limit)
			if !errors.Is(err, tt.err) || (tt.err == nil && string(got) != tt.want) {
				t.Errorf("Gunzip = %q, %v; want %q, %v", got, err, tt.want, tt.err)
			}
		})
	}
}

// TestGunzipBomb: 256 MiB of zeros in 256 KiB of gzip (four members) is
// refused once 8 MiB have come out, and unpacking it allocates no more
// than the bound allows, not the 256 MiB it would unpack to.
func TestGunzipBomb(t *testing.T) {
	const limit = 8 << 20
	bomb := hostile.GzipBomb(256 << 20)
	if len(bomb) > 1<<20 {
		t.Fatalf("the bomb is %d bytes compressed", len(bomb))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Gunzip(bomb, limit)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Gunzip of a gzip bomb: %v, want ErrTooLarge", err)
	}
	if got := err.Error(); got != "too large: unpacks to more than 8 MiB (a gzip bomb?)" {
		t.Errorf("message %q", got)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("unpacking a gzip bomb of 256 MiB (%d KiB) allocated %.1f MiB", len(bomb)>>10, float64(alloc)/(1<<20))
	// TotalAlloc counts the whole process's allocations (the race
	// detector's and other tests' too): the bound proves the bomb was not
	// unpacked (256 MiB), not the exact cost of the limit (about 2×8 MiB).
	if alloc > 8*limit {
		t.Errorf("unpacking the bomb allocated %d MiB; it should be about %d MiB, far below the 256 MiB it unpacks to", alloc>>20, 2*limit>>20)
	}
}
