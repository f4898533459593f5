package extract

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// Gzipped reports whether the file name is a gzip-compressed document:
// ".gz" (any case) after the extension of a format FormatOf knows, as in
// "manual.pdf.gz" or "NEWS.md.gz" (Debian ships most of its
// documentation so). It returns the name without ".gz", whose format is
// the document's.
func Gzipped(name string) (inner string, ok bool) {
	ext := filepath.Ext(name)
	if !strings.EqualFold(ext, ".gz") {
		return name, false
	}
	inner = name[:len(name)-len(ext)]
	return inner, FormatOf(inner) != FormatNone
}

// Gunzip decompresses data, a gzip file of one or more members, and
// returns at most limit bytes. It stops as soon as more than limit bytes
// have come out, with an error wrapping ErrTooLarge: a gzip bomb (a few
// kilobytes that unpack to gigabytes) costs at most limit+1 bytes of
// output, in a buffer that doubles as it fills (less than twice that
// allocated in all), and the decompressor's own 32 KiB window. Data that is
// not gzip, or is truncated or corrupt (its checksum or length wrong), is
// an error wrapping ErrMalformed.
func Gunzip(data []byte, limit int) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: not gzip data: %w", ErrMalformed, err)
	}
	defer zr.Close()
	// A first guess at the size: compressed text is usually a third of
	// its size, or less. The buffer doubles from there, to limit+1 at
	// most: all the buffers together are less than twice that.
	out := make([]byte, 0, min(limit+1, 4*len(data)+512))
	for {
		if len(out) > limit {
			return nil, fmt.Errorf("%w: unpacks to more than %s (a gzip bomb?)", ErrTooLarge, sizeText(limit))
		}
		if len(out) == cap(out) {
			out = slices.Grow(out, min(2*cap(out), limit+1)-len(out))
		}
		n, err := zr.Read(out[len(out):cap(out)])
		out = out[:len(out)+n]
		switch {
		case len(out) > limit:
			continue // refused above
		case errors.Is(err, io.EOF):
			return out, nil
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fmt.Errorf("%w: truncated gzip data", ErrMalformed)
		case err != nil:
			return nil, fmt.Errorf("%w: gzip: %w", ErrMalformed, err)
		}
	}
}

// sizeText writes a size in bytes for people: "8 MiB", "512 KiB", "100 bytes".
func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
