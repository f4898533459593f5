package pdfprint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/internal/pdfprint/pdfcheck"
)

// A page in Latin, CJK and Arabic script prints to a PDF that passes qpdf
// --check, embeds its fonts, gives every script's text back to pdftotext
// and keeps its link.
func TestPrintScripts(t *testing.T) {
	pdfcheck.Need(t, "chromium")
	page := `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Scripts</title></head><body>
<h1>Undersea cables</h1>
<p>Repair ships splice the cable <a href="https://example.org/cables?a=1&amp;b=2">[1]</a>.</p>
<p>海底ケーブルの修理には数週間かかる。</p>
<p dir="auto">تستغرق إصلاحات الكابلات البحرية أسابيع</p>
</body></html>`
	pdf, err := Print(context.Background(), []byte(page), Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := pdfcheck.Read(t, pdf)
	text, uris := d.Text, d.URIs
	// (Words with the lam-alef ligature come back from pdftotext with
	// its two letters swapped, a poppler limitation: none is asked for.)
	for _, want := range []string{"Undersea cables", "Repair ships splice the cable [1].", "海底ケーブルの修理には数週間かかる。", "تستغرق", "البحرية", "أسابيع"} {
		if !strings.Contains(text, want) {
			t.Errorf("pdftotext does not give %q back:\n%s", want, text)
		}
	}
	if len(uris) != 1 || uris[0] != "https://example.org/cables?a=1&b=2" {
		t.Errorf("link annotations %q, want the page's one link", uris)
	}
}

// fakeBrowser writes an executable shell script that stands for the
// browser: body runs with $out set to the --print-to-pdf file.
func fakeBrowser(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fake-chromium")
	script := "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in --print-to-pdf=*) out=\"${a#--print-to-pdf=}\";; esac; done\n" + body + "\n"
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

// Without a browser, Print says what to do.
func TestNoBrowser(t *testing.T) {
	_, err := Print(context.Background(), []byte("<p>x</p>"), Options{Chromium: filepath.Join(t.TempDir(), "no-such-chromium")})
	if !errors.Is(err, ErrNoChromium) || !strings.Contains(err.Error(), "PDF needs Chromium: install it or set output.chromium") {
		t.Errorf("a missing configured browser: %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := Find(""); !errors.Is(err, ErrNoChromium) || !strings.Contains(err.Error(), "none of chromium, chromium-browser, google-chrome") {
		t.Errorf("no browser on PATH: %v", err)
	}
}

// A browser that fails, writes no PDF, writes something else or too much
// is an error with the tail of its stderr, cleaned of control characters
// and of the D-Bus noise of containers.
func TestBrowserFails(t *testing.T) {
	pdfcheck.Need(t, "sh")
	tests := []struct {
		name, body string
		max        int64
		want       []string
	}{
		{"exit status", `echo "[1:2:ERROR:dbus/bus.cc:405] Failed to connect to the bus" >&2; printf 'Fatal: no \033[31mdisplay\n' >&2; exit 3`, 0,
			[]string{"exit status 3", "Fatal: no  [31mdisplay"}},
		{"no PDF", `echo quiet >&2`, 0, []string{"it wrote no PDF", "quiet"}},
		{"not a PDF", `echo '<html>' > "$out"`, 0, []string{"what it wrote is not a PDF"}},
		{"too large", `head -c 5000 /dev/zero | sed 's/^/%PDF-1.4 /' > "$out"`, 1000, []string{"larger than 1000 bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Print(context.Background(), []byte("<p>x</p>"), Options{Chromium: fakeBrowser(t, tt.body), MaxBytes: tt.max})
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "dbus") || strings.ContainsRune(err.Error(), '\033') {
				t.Errorf("error %q carries noise or control characters", err)
			}
		})
	}
}

// A browser that outlives Options.Timeout is stopped; one whose context
// ends is stopped with the processes it started: none is left behind.
func TestStopsTheBrowser(t *testing.T) {
	pdfcheck.Need(t, "sh", "sleep")
	_, err := Print(context.Background(), []byte("<p>x</p>"), Options{Chromium: fakeBrowser(t, "exec sleep 300"), Timeout: 1}) // 1ns
	var perr *Error
	if !errors.As(err, &perr) || !strings.Contains(err.Error(), "printing took longer than 1ns") {
		t.Errorf("error %v, want the timeout", err)
	}

	pidFile := filepath.Join(t.TempDir(), "child.pid")
	browser := fakeBrowser(t, "sleep 300 & echo $! > "+pidFile+".new; mv "+pidFile+".new "+pidFile+"; wait")
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Print(ctx, []byte("<p>x</p>"), Options{Chromium: browser})
		done <- err
	}()
	var pid int
	for pid == 0 { // until the browser has started its child
		if b, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		runtime.Gosched()
	}
	cause := errors.New("the client went away")
	cancel(cause)
	if err := <-done; !errors.Is(err, cause) {
		t.Errorf("error %v, want the context's cause", err)
	}
	// The group was sent SIGKILL when the context ended; the child dies as
	// the kernel gets to it, which on a loaded machine may be a moment
	// after Print returns. It must be gone well within a generous bound.
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pid) {
		t.Errorf("the browser's child %d is still running", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// alive reports whether process pid runs (a zombie, killed and not yet
// reaped, does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

// A context already ended prints nothing and says why.
func TestCanceled(t *testing.T) {
	pdfcheck.Need(t, "sh")
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("the client went away")
	cancel(cause)
	if _, err := Print(ctx, []byte("<p>x</p>"), Options{Chromium: fakeBrowser(t, `echo '%PDF-1.4' > "$out"`)}); !errors.Is(err, cause) {
		t.Errorf("error %v, want the context's cause", err)
	}
}

func TestTail(t *testing.T) {
	var tl tail
	tl.Write([]byte(strings.Repeat("a", 3000) + "\n"))
	tl.Write([]byte("last line\n"))
	if s := tl.String(); len(s) > tailSize+len(" | ") || !strings.HasSuffix(s, " | last line") {
		t.Errorf("tail %d bytes, ending %q", len(s), s[max(0, len(s)-20):])
	}
}
