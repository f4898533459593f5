// Package pdfprint prints an HTML page to PDF with a headless Chromium:
// the browser lays the page out, shapes every script (Arabic and Hebrew
// right to left, CJK) with the system's fonts, embeds those fonts and keeps
// each <a href> as a PDF link. A pure-Go PDF writer cannot shape Arabic;
// Chromium can.
//
// Print runs one browser process per page, in a private temporary
// directory (the page, the browser's profile and the PDF), offline and
// quiet: no GPU, no extensions, no background networking, no first-run
// work, no header or footer. The page is expected to fetch nothing (the
// report pages it prints carry a Content-Security-Policy that forbids
// every outside resource). The process is bounded by the caller's context
// and Options.Timeout, its PDF by Options.MaxBytes, its stderr kept to a
// short tail for the error; the directory is removed before Print returns.
// Print owns no goroutine after it returns.
package pdfprint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode"
)

// Defaults of Options.
const (
	// DefaultTimeout bounds one printing: a report of a few hundred pages
	// takes seconds; a browser that hangs is stopped.
	DefaultTimeout = 2 * time.Minute
	// DefaultMaxBytes caps the PDF: a report is well under a megabyte, with
	// its fonts subset.
	DefaultMaxBytes = 64 << 20
)

// Browsers are the names Find looks for on PATH, in order, when no path is
// configured.
var Browsers = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// ErrNoChromium reports that no browser was found to print with.
var ErrNoChromium = errors.New("PDF needs Chromium: install it or set output.chromium")

// Options configures Print. The zero value finds the browser on PATH and
// uses the defaults.
type Options struct {
	// Chromium is the browser's executable: a path, or a name looked up on
	// PATH; "" looks for each of Browsers.
	Chromium string
	// Timeout bounds one printing; 0 is DefaultTimeout.
	Timeout time.Duration
	// MaxBytes caps the PDF's size; 0 is DefaultMaxBytes.
	MaxBytes int64
}

// Error is a printing that failed: the browser that ran, how it failed and
// the tail of what it wrote on stderr (cleaned of control characters).
type Error struct {
	Browser string
	Err     error
	Stderr  string
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("pdfprint: %s: %v", e.Browser, e.Err)
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Find returns the path of the browser to print with: chromium when it
// names one (a path, or a name on PATH), else the first of Browsers on
// PATH. It returns an error wrapping ErrNoChromium when there is none.
func Find(chromium string) (string, error) {
	if chromium != "" {
		p, err := exec.LookPath(chromium)
		if err != nil {
			return "", fmt.Errorf("%w (output.chromium %q: %v)", ErrNoChromium, chromium, err)
		}
		return p, nil
	}
	for _, name := range Browsers {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w (none of %s is on PATH)", ErrNoChromium, strings.Join(Browsers, ", "))
}

// Print returns page, a complete HTML document, printed to PDF by the
// browser opts names. The page is loaded from a file, so it reaches
// nothing but what it embeds. A missing browser is an error wrapping
// ErrNoChromium; a browser that fails, times out or writes no PDF is an
// *Error with its stderr's tail; a PDF over opts.MaxBytes is an error.
// When ctx ends first, Print stops the browser (and its children) and
// returns context.Cause(ctx).
func Print(ctx context.Context, page []byte, opts Options) ([]byte, error) {
	browser, err := Find(opts.Chromium)
	if err != nil {
		return nil, err
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	limit := opts.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	dir, err := os.MkdirTemp("", "deepresearch-pdf-")
	if err != nil {
		return nil, fmt.Errorf("pdfprint: %w", err)
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "report.html"), filepath.Join(dir, "report.pdf")
	if err := os.WriteFile(in, page, 0o600); err != nil {
		return nil, fmt.Errorf("pdfprint: %w", err)
	}

	runCtx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("printing took longer than %v", timeout))
	defer cancel()
	cmd := exec.CommandContext(runCtx, browser, Args(in, out, filepath.Join(dir, "profile"), os.Geteuid() == 0)...)
	cmd.Dir = dir
	var stderr tail
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	processGroup(cmd)
	cmd.WaitDelay = 5 * time.Second // children that keep the pipes open are not waited for
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if runCtx.Err() != nil {
		return nil, &Error{Browser: browser, Err: context.Cause(runCtx), Stderr: stderr.String()}
	}
	if runErr != nil {
		return nil, &Error{Browser: browser, Err: runErr, Stderr: stderr.String()}
	}
	f, err := os.Open(out)
	if err != nil {
		return nil, &Error{Browser: browser, Err: errors.New("it wrote no PDF"), Stderr: stderr.String()}
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("pdfprint: reading the PDF: %w", err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("pdfprint: the PDF is larger than %d bytes", limit)
	}
	if !bytes.HasPrefix(b, []byte("%PDF-")) {
		return nil, &Error{Browser: browser, Err: errors.New("what it wrote is not a PDF"), Stderr: stderr.String()}
	}
	return b, nil
}

// Args are the browser's arguments that print the page file in to the
// PDF file out with a fresh profile in the directory profile: headless,
// offline and quiet. asRoot adds --no-sandbox, which Chromium requires of
// root (CI containers run as root).
func Args(in, out, profile string, asRoot bool) []string {
	args := []string{
		"--headless=new",
		"--disable-gpu",
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-default-apps",
		"--disable-extensions",
		"--disable-sync",
		"--disable-dev-shm-usage", // containers have a small /dev/shm
		"--mute-audio",
		"--user-data-dir=" + profile,
		"--no-pdf-header-footer",
		"--print-to-pdf=" + out,
	}
	if asRoot {
		args = append(args, "--no-sandbox")
	}
	return append(args, "file://"+filepath.ToSlash(in))
}

// tailSize is how much of the browser's stderr an Error keeps.
const tailSize = 2048

// tail keeps the last tailSize bytes written to it.
type tail struct{ b []byte }

func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= tailSize {
		p = p[len(p)-tailSize:]
		t.b = t.b[:0]
	}
	t.b = append(t.b, p...)
	if over := len(t.b) - tailSize; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return n, nil
}

// String is the tail's lines that say something, without the messages
// every headless browser in a container writes (no D-Bus, no GPU), joined
// by " | " and cleaned of control characters and invalid UTF-8.
func (t *tail) String() string {
	var lines []string
	for line := range strings.SplitSeq(strings.ToValidUTF8(string(t.b), "\uFFFD"), "\n") {
		line = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
				return ' '
			}
			return r
		}, line)
		line = strings.TrimSpace(line)
		if line == "" || strings.Contains(line, "dbus") || strings.Contains(line, "D-Bus") {
			continue
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, " | ")
}
