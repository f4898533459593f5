package extract

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// zipReader reads the members of a zip container within Limits: at most
// MaxMembers members and MaxUnzipped bytes decompressed, all reads
// together, counted as the bytes come out (a member's declared size may
// lie).
type zipReader struct {
	files map[string]*zip.File // by clean name
	left  int64                // decompressed bytes still allowed
	bud   *budget              // the call's budget and context
}

func openZip(data []byte, lim Limits, bud *budget) (*zipReader, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%w: not a readable zip container: %w", ErrMalformed, err)
	}
	if len(zr.File) > lim.MaxMembers {
		return nil, fmt.Errorf("%w: %d zip members, the limit is %d", ErrTooLarge, len(zr.File), lim.MaxMembers)
	}
	z := &zipReader{files: make(map[string]*zip.File, len(zr.File)), left: lim.MaxUnzipped, bud: bud}
	for _, f := range zr.File {
		z.files[cleanMember(f.Name)] = f
	}
	return z, nil
}

func cleanMember(name string) string {
	return strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(name, `\`, "/")), "/")
}

// has reports whether the container has the member name.
func (z *zipReader) has(name string) bool {
	_, ok := z.files[cleanMember(name)]
	return ok
}

// read returns the member name, decompressed, or an error naming it.
func (z *zipReader) read(name string) ([]byte, error) {
	f, ok := z.files[cleanMember(name)]
	if !ok {
		return nil, fmt.Errorf("%w: no %s in the zip container", ErrMalformed, name)
	}
	if err := z.bud.alive(name); err != nil {
		return nil, err
	}
	if f.Flags&0x1 != 0 {
		return nil, fmt.Errorf("%w: %s is encrypted", ErrEncrypted, name)
	}
	if int64(f.UncompressedSize64) > z.left || f.UncompressedSize64 > 1<<62 {
		return nil, fmt.Errorf("%w: %s unpacks to %d bytes, past the limit", ErrTooLarge, name, f.UncompressedSize64)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrMalformed, name, err)
	}
	defer rc.Close()
	// Read into a buffer of the declared size, which archive/zip holds
	// the member to (more or less is an error it reports): no growing,
	// no copy.
	data := make([]byte, f.UncompressedSize64)
	_, err = io.ReadFull(rc, data)
	if err == nil {
		// At the end, archive/zip checks the checksum.
		_, err = rc.Read(make([]byte, 1))
	}
	z.left -= int64(len(data))
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: %s: %w", ErrMalformed, name, err)
	}
	return data, nil
}

// names returns the members' clean names.
func (z *zipReader) names() []string {
	out := make([]string, 0, len(z.files))
	for n := range z.files {
		out = append(out, n)
	}
	return out
}
