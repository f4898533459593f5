// Package pdftext reads the text of PDF files, page by page, with PDFium
// compiled to WebAssembly and run by wazero: pure Go, so the program stays
// one binary, and sandboxed, so a hostile or broken PDF can at worst fail
// its own read. Each read runs in a fresh instance of the module, with its
// memory capped (Config.MaxMemory) and its time bounded by the caller's
// context: when ctx ends, the instance is killed mid-call.
//
// The module (about 6 MB) is compiled once per process, on the first read:
// about 4 s on a 2-core machine, or well under a second when the compiled
// code is in the cache folder (Config.CacheDir) from an earlier run.
//
// A Reader is safe for concurrent use; reads beyond Config.Instances wait
// for one to finish. It starts no goroutine of its own that outlives a
// call.
package pdftext

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/klippa-app/go-pdfium"
	pdferrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// Sentinels the errors of Read wrap; test with errors.Is.
var (
	// ErrEncrypted: the PDF needs a password to be read, or uses a
	// security handler PDFium does not know.
	ErrEncrypted = errors.New("encrypted PDF (needs a password)")
	// ErrMalformed: the file is not a PDF PDFium can parse (truncated,
	// corrupt, or another format).
	ErrMalformed = errors.New("malformed or truncated PDF")
	// ErrUnavailable: the PDF reader could not be started.
	ErrUnavailable = errors.New("PDF reader unavailable")
	// ErrTooLarge: the PDF needs more than the reader may use: more
	// memory than Config.MaxMemory (a decompression bomb), more pages
	// than Config.MaxPages.
	ErrTooLarge = errors.New("too large for the PDF reader")
)

// Defaults for the zero Config fields.
const (
	DefaultMaxMemory = 512 << 20
	DefaultInstances = 2
	DefaultMaxText   = 16 << 20
	DefaultMaxPages  = 100_000
)

// minMemory is the least memory a read's instance gets: more than
// PDFium starts with. An instance gets Config.MaxMemory, or half as much
// as many times as it takes to fit in what address space the process has
// left, but not less than this.
const minMemory = 32 << 20

// failedRun is how many pages in a row may fail to load before a read
// stops: a page tree that claims a million pages it does not have, or
// loops, is not walked a million times.
const failedRun = 100

// Config configures a Reader. The zero value is ready to use.
type Config struct {
	// CacheDir keeps the compiled module between runs. Default
	// deepresearch/wasm in the user's cache folder; "off": no cache.
	// A folder that cannot be made means no cache, not an error.
	CacheDir string
	// MaxMemory caps the memory of one read's instance, in bytes. A PDF
	// that needs more fails to read, with ErrTooLarge. On Linux the
	// memory is mapped outside the Go heap, reserved up front and used as
	// it grows, so a read takes at most this much (and the memory goes
	// back to the system when the read ends). Default 512 MiB.
	MaxMemory int64
	// Instances is how many reads run at once. Default 2.
	Instances int
	// MaxText caps the text of one document, in bytes: pages past it are
	// not read, and Document.Truncated says so. Default 16 MiB.
	MaxText int
	// MaxPages caps the pages of one document: a PDF whose page tree
	// claims more fails with ErrTooLarge. Default 100,000.
	MaxPages int
}

// Document is the text of a PDF.
type Document struct {
	// Title is the document information's title, as written (may be
	// empty or meaningless: "untitled", "Microsoft Word - x.doc").
	Title string
	// Author is the document information's author, as written; "" when
	// it has none.
	Author string
	// Pages holds each page's text, in page order (Pages[0] is page 1),
	// lines separated by "\n"; "" for a page without text. Text is as
	// PDFium gives it: ligatures and hyphens as printed, headers and
	// footers included (see extract.FromPages).
	Pages []string
	// Truncated reports that pages past Config.MaxText were not read.
	Truncated bool
}

// Reader reads PDFs. Make one with New, or use the package's Read.
type Reader struct {
	cfg Config

	mu   sync.Mutex
	pool pdfium.Pool // nil until the first read
	err  error       // why the pool could not start

	// instanceTurn (a semaphore of one, so that a wait can end with its
	// context) makes instances one at a time, so that the memory the
	// allocator makes (made) is known to belong to the instance got.
	instanceTurn chan struct{}
	made         *linearMemory
}

// New returns a Reader; nothing is compiled until the first read.
func New(cfg Config) *Reader {
	if cfg.MaxMemory <= 0 {
		cfg.MaxMemory = DefaultMaxMemory
	}
	if cfg.Instances <= 0 {
		cfg.Instances = DefaultInstances
	}
	if cfg.MaxText <= 0 {
		cfg.MaxText = DefaultMaxText
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = DefaultMaxPages
	}
	return &Reader{cfg: cfg, instanceTurn: make(chan struct{}, 1)}
}

var shared = sync.OnceValue(func() *Reader { return New(Config{}) })

// Read reads data with the process's shared Reader (default Config), which
// lives as long as the process.
func Read(ctx context.Context, data []byte) (Document, error) {
	return shared().Read(ctx, data)
}

// Close releases the compiled module and the instances. Reads after Close
// start it again.
func (r *Reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pool == nil {
		return nil
	}
	err := r.pool.Close()
	r.pool, r.err = nil, nil
	return err
}

// start compiles the module, once.
func (r *Reader) start() (pdfium.Pool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pool != nil || r.err != nil {
		return r.pool, r.err
	}
	pages := uint32(min(r.cfg.MaxMemory>>16, 1<<16))
	poolCtx := context.Background()
	if ownMemory {
		// The memories enforce MaxMemory themselves, and say when
		// they refused to grow.
		pages = 1 << 16
		poolCtx = experimental.WithMemoryAllocator(poolCtx, mmapAllocator(r.cfg.MaxMemory, func(m *linearMemory) { r.made = m }))
	}
	rc := wazero.NewRuntimeConfig().
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(pages)
	if dir := cacheDir(r.cfg.CacheDir); dir != "" {
		if cache, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
			rc = rc.WithCompilationCache(cache)
		}
	}
	pool, err := webassembly.Init(webassembly.Config{
		Context:       poolCtx,
		MaxIdle:       0,
		MaxTotal:      r.cfg.Instances,
		RuntimeConfig: rc,
		FSConfig:      wazero.NewFSConfig(), // no file system: documents come as bytes
		Stdout:        discard{},
		Stderr:        discard{},
	})
	if err != nil {
		r.err = fmt.Errorf("%w: %w", ErrUnavailable, err)
		return nil, r.err
	}
	r.pool = pool
	return pool, nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func cacheDir(dir string) string {
	switch dir {
	case "off":
		return ""
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(base, "deepresearch", "wasm")
	}
	if os.MkdirAll(dir, 0o755) != nil {
		return ""
	}
	return dir
}

// Read returns the text of the PDF data, page by page. It fails with an
// error wrapping ErrEncrypted for a PDF that needs a password,
// ErrMalformed for one PDFium cannot parse or whose page tree is empty,
// broken or loops (no page loads), ErrTooLarge for one that needs more
// memory or pages than the Config allows (a decompression bomb),
// ErrUnavailable when the reader cannot start, or the context's cause
// when ctx ends first (the read is then stopped at once). A PDF whose
// pages load but have no text (a scan) is no error: its pages are "".
//
// Cost: the first read of a Reader compiles the module (see the package
// documentation); each read then instantiates it (milliseconds) and
// extracts about 300 pages a second.
func (r *Reader) Read(ctx context.Context, data []byte) (doc Document, err error) {
	if err := context.Cause(ctx); err != nil {
		return Document{}, err
	}
	pool, err := r.start()
	if err != nil {
		return Document{}, err
	}
	// wazero panics when an instance's memory cannot hold its initial
	// size (about 18 MiB for PDFium): a process that has not the address
	// space for that reads no PDF, and says so.
	if err := roomFor(minMemory); err != nil {
		return Document{}, fmt.Errorf("%w: no address space for its memory (%d MiB could not be reserved: %w)", ErrUnavailable, minMemory>>20, err)
	}
	select {
	case r.instanceTurn <- struct{}{}:
	case <-ctx.Done():
		return Document{}, context.Cause(ctx)
	}
	r.made = nil
	inst, err := pool.GetInstanceWithContext(ctx)
	mem := r.made
	<-r.instanceTurn
	// After the instance is closed or killed (the deferred func below
	// runs first): its memory may be unmapped.
	defer mem.release()
	if err != nil {
		if ctx.Err() != nil {
			return Document{}, context.Cause(ctx)
		}
		return Document{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	// A read that outlives ctx is killed: the instance's module is closed,
	// which ends the call running in it.
	killed := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		inst.Kill()
		close(killed)
	})
	defer func() {
		if !stop() {
			<-killed
			err = context.Cause(ctx)
			return
		}
		inst.Close()
	}()
	return r.read(inst, mem, data)
}

// read reads the document with inst, whose memory is mem (nil when not
// known). A page that fails to load is a page without text, but a page
// that needs more memory than the cap fails the read with ErrTooLarge,
// and a page tree none of whose pages load (or of which failedRun in a
// row do not) is ErrMalformed: neither passes for a scan.
func (r *Reader) read(inst pdfium.Pdfium, mem *linearMemory, data []byte) (Document, error) {
	opened, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		return Document{}, openError(err)
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: opened.Document})
	var doc Document
	if t, err := inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: opened.Document, Tag: "Title"}); err == nil {
		doc.Title = t.Value
	}
	if a, err := inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: opened.Document, Tag: "Author"}); err == nil {
		doc.Author = a.Value
	}
	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: opened.Document})
	if err != nil {
		return Document{}, fmt.Errorf("%w: counting pages: %w", ErrMalformed, err)
	}
	if count.PageCount == 0 {
		return Document{}, fmt.Errorf("%w: no page could be found (an empty or broken page tree)", ErrMalformed)
	}
	if count.PageCount > r.cfg.MaxPages {
		return Document{}, fmt.Errorf("%w: the page tree claims %d pages; the limit is %d", ErrTooLarge, count.PageCount, r.cfg.MaxPages)
	}
	total, loaded, failed := 0, 0, 0
	for i := range count.PageCount {
		if total > r.cfg.MaxText {
			doc.Truncated = true
			break
		}
		t, err := inst.GetPageText(&requests.GetPageText{
			Page: requests.Page{ByIndex: &requests.PageByIndex{Document: opened.Document, Index: i}},
		})
		switch {
		case err != nil && mem.outOfMemory():
			if c := mem.capacity(); c > 0 && c < r.cfg.MaxMemory {
				return Document{}, fmt.Errorf("%w: page %d needs more than the %d MiB of address space the reader could reserve (of %d MiB it may use)",
					ErrTooLarge, i+1, c>>20, r.cfg.MaxMemory>>20)
			}
			return Document{}, fmt.Errorf("%w: page %d needs more than the %d MiB the reader may use (a decompression bomb?)", ErrTooLarge, i+1, r.cfg.MaxMemory>>20)
		case err != nil && strings.Contains(err.Error(), "wasm error"):
			// PDFium stopped (a trap): nothing more can be read. A
			// killed instance fails so too, and Read reports ctx.
			return Document{}, fmt.Errorf("%w: page %d stopped the reader: %s", ErrMalformed, i+1, firstLine(err.Error()))
		case err != nil:
			// A page that cannot be loaded is a page without text.
			doc.Pages = append(doc.Pages, "")
			if failed++; failed == failedRun {
				if loaded == 0 {
					return Document{}, fmt.Errorf("%w: none of the first %d of its %d pages could be loaded (a broken or looping page tree)", ErrMalformed, failedRun, count.PageCount)
				}
				doc.Truncated = true
				return doc, nil
			}
			continue
		}
		loaded, failed = loaded+1, 0
		text := strings.ReplaceAll(t.Text, "\r\n", "\n")
		total += len(text)
		doc.Pages = append(doc.Pages, text)
	}
	if loaded == 0 {
		return Document{}, fmt.Errorf("%w: none of its %d pages could be loaded (a broken or looping page tree)", ErrMalformed, count.PageCount)
	}
	return doc, nil
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

func openError(err error) error {
	switch {
	case errors.Is(err, pdferrors.ErrPassword), errors.Is(err, pdferrors.ErrSecurity):
		return fmt.Errorf("%w: %w", ErrEncrypted, err)
	case errors.Is(err, pdferrors.ErrFormat), errors.Is(err, pdferrors.ErrFile), errors.Is(err, pdferrors.ErrUnknown):
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return fmt.Errorf("%w: %w", ErrMalformed, err)
}
