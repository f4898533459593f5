// Package runpack packs a stored run into one portable file and reads it
// back: a tar archive compressed with zstd (run.tar.zst) holding the run's
// manifest, its journal, its event log and its report — everything
// needed to replay it offline on another machine, and never a key (the
// journal and the manifest hold none).
//
// The archive's members, in this order:
//
//	manifest.json   the pack's format and version, and the stored run
//	journal.jsonl   the run's journal entries, one per line (internal/journal)
//	events.jsonl    the run's events, one per line, as stored
//	report.json     the run's report, when it has one
//
// Writing is deterministic: the same run packs to the same bytes. Reading
// treats the file as untrusted: it streams each member, one line at a
// time, so that memory follows what the pack holds, not how it is laid
// out (blank lines cost nothing, a line is at most MaxLine bytes, and
// every kept line is charged its bytes and its bookkeeping against
// MaxBytes); members it does not know are refused, and a pack of another
// format version is refused by name.
package runpack

import (
	"archive/tar"
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Format names the pack format in its manifest; Version is the version
// this package writes and reads.
const (
	Format  = "deepresearch-run"
	Version = 1
)

// MaxBytes bounds what Read decompresses, all members together, and what
// it keeps: each kept line is charged its length and lineCost.
const MaxBytes = 1 << 30

// MaxLine bounds one line of journal.jsonl or events.jsonl, and
// manifest.json and report.json each.
const MaxLine = 64 << 20

// maxWindow bounds the zstd window a pack may ask the reader to hold:
// Write's encoder uses 8 MiB.
const maxWindow = 32 << 20

// lineCost is what Read charges a kept line beyond its bytes: the slice
// that holds it.
const lineCost = 24

// maxBytes and maxLine are MaxBytes and MaxLine; tests lower them.
var (
	maxBytes int64 = MaxBytes
	maxLine  int64 = MaxLine
)

// ErrFormat reports a file that is not a run pack this package reads.
var ErrFormat = errors.New("runpack: not a deepresearch run pack")

// Pack is one run, packed.
type Pack struct {
	Manifest Manifest
	// Journal holds the encoded journal entries, in order.
	Journal [][]byte
	// Events holds the run's events as stored (JSON), in Seq order.
	Events [][]byte
	// Report is the report's JSON; nil when the run has none.
	Report json.RawMessage
}

// Manifest describes a pack.
type Manifest struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Program names the program and version that wrote the pack.
	Program string `json:"program"`
	// Run is the stored run's record (ID, question, options, status,
	// usage), as the store gives it.
	Run json.RawMessage `json:"run"`
}

const (
	manifestName = "manifest.json"
	journalName  = "journal.jsonl"
	eventsName   = "events.jsonl"
	reportName   = "report.json"
)

// epoch stamps every member, so that a pack does not depend on when it
// was written.
var epoch = time.Unix(0, 0).UTC()

// Write writes p to w as a run.tar.zst. Manifest.Format and Version are
// set here.
func Write(w io.Writer, p Pack) error {
	p.Manifest.Format, p.Manifest.Version = Format, Version
	man, err := json.Marshal(p.Manifest)
	if err != nil {
		return fmt.Errorf("runpack: manifest: %w", err)
	}
	zw, err := zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return fmt.Errorf("runpack: %w", err)
	}
	tw := tar.NewWriter(zw)
	add := func(name string, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: epoch,
			Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	members := []struct {
		name string
		data []byte
	}{
		{manifestName, append(man, '\n')},
		{journalName, lines(p.Journal)},
		{eventsName, lines(p.Events)},
	}
	if p.Report != nil {
		members = append(members, struct {
			name string
			data []byte
		}{reportName, append(bytes.TrimSpace(p.Report), '\n')})
	}
	for _, m := range members {
		if err := add(m.name, m.data); err != nil {
			zw.Close()
			return fmt.Errorf("runpack: write %s: %w", m.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		zw.Close()
		return fmt.Errorf("runpack: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("runpack: %w", err)
	}
	return nil
}

func lines(ls [][]byte) []byte {
	var b bytes.Buffer
	for _, l := range ls {
		b.Write(bytes.TrimSpace(l))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Read reads a pack Write wrote. A file that is not one fails with an
// error matching ErrFormat, naming the member and, in a .jsonl member,
// the line; a pack of another version says which.
func Read(r io.Reader) (Pack, error) {
	zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxBytes),
		zstd.WithDecoderMaxWindow(maxWindow))
	if err != nil {
		return Pack{}, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	defer zr.Close()
	tr := tar.NewReader(io.LimitReader(zr, maxBytes+1))
	var p Pack
	seen := map[string]bool{}
	total := int64(0)  // bytes declared by the members' headers
	budget := maxBytes // what kept lines may still cost
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Pack{}, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		if h.Typeflag != tar.TypeReg || seen[h.Name] {
			return Pack{}, fmt.Errorf("%w: member %q is not a single regular file", ErrFormat, h.Name)
		}
		seen[h.Name] = true
		if total += h.Size; total > maxBytes {
			return Pack{}, fmt.Errorf("%w: more than %d bytes", ErrFormat, maxBytes)
		}
		switch h.Name {
		case manifestName, reportName:
			if h.Size > maxLine {
				return Pack{}, fmt.Errorf("%w: %s: %d bytes, more than %d", ErrFormat, h.Name, h.Size, maxLine)
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				return Pack{}, fmt.Errorf("%w: %s: %v", ErrFormat, h.Name, err)
			}
			if h.Name == reportName {
				p.Report = bytes.TrimSpace(data)
				break
			}
			if err := json.Unmarshal(data, &p.Manifest); err != nil {
				return Pack{}, fmt.Errorf("%w: manifest: %v", ErrFormat, err)
			}
			switch {
			case p.Manifest.Format != Format:
				return Pack{}, fmt.Errorf("%w: the manifest names format %q", ErrFormat, p.Manifest.Format)
			case p.Manifest.Version != Version:
				return Pack{}, fmt.Errorf("runpack: pack version %d (written by %q); this program reads version %d", p.Manifest.Version, p.Manifest.Program, Version)
			}
		case journalName:
			if p.Journal, err = readLines(tr, h.Name, &budget); err != nil {
				return Pack{}, err
			}
		case eventsName:
			if p.Events, err = readLines(tr, h.Name, &budget); err != nil {
				return Pack{}, err
			}
		default:
			return Pack{}, fmt.Errorf("%w: unknown member %q", ErrFormat, h.Name)
		}
	}
	if !seen[manifestName] || !seen[journalName] || !seen[eventsName] {
		return Pack{}, fmt.Errorf("%w: it lacks %s, %s or %s", ErrFormat, manifestName, journalName, eventsName)
	}
	return p, nil
}

// readLines reads member name's non-blank lines, trimmed, one at a time:
// a blank line costs nothing, a line longer than maxLine is refused
// before it is held whole, and each kept line is charged its length and
// lineCost against *budget.
func readLines(r io.Reader, name string, budget *int64) ([][]byte, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var out [][]byte
	var line []byte // the current line's bytes so far, past the first buffer
	for n := 1; ; {
		frag, err := br.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			return nil, fmt.Errorf("%w: %s, line %d: %v", ErrFormat, name, n, err)
		}
		if line == nil && err != bufio.ErrBufferFull {
			line = frag // the whole line is in the buffer: copy it only if kept
		} else {
			if int64(len(line)+len(frag)) > maxLine {
				return nil, fmt.Errorf("%w: %s, line %d: longer than %d bytes", ErrFormat, name, n, maxLine)
			}
			line = append(line, frag...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if l := bytes.TrimSpace(line); len(l) > 0 {
			if int64(len(l)) > maxLine {
				return nil, fmt.Errorf("%w: %s, line %d: longer than %d bytes", ErrFormat, name, n, maxLine)
			}
			if *budget -= int64(len(l)) + lineCost; *budget < 0 {
				return nil, fmt.Errorf("%w: %s, line %d: the pack holds more than %d bytes", ErrFormat, name, n, maxBytes)
			}
			out = append(out, bytes.Clone(l))
		}
		line = nil
		if err == io.EOF {
			return out, nil
		}
		n++
	}
}
