package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/internal/testpdf"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeResolver answers from a table; unknown names are not found.
type fakeResolver map[string][]string

func (r fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	ips, ok := r[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []netip.Addr
	for _, s := range ips {
		out = append(out, netip.MustParseAddr(s))
	}
	return out, nil
}

var testNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// server is an httptest server that counts the requests it answers.
type server struct {
	*httptest.Server
	hits atomic.Int64
}

func newServer(t *testing.T, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{}
	s.Server = newHTTPTestServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

var newHTTPTestServer = httptest.NewServer

// hostPort is the server's HOST:PORT, for Config.Allow.
func (s *server) hostPort() string { return strings.TrimPrefix(s.URL, "http://") }

func (s *server) port() string {
	_, p, _ := net.SplitHostPort(s.hostPort())
	return p
}

func newFetcher(t *testing.T, cfg Config) *Fetcher {
	t.Helper()
	if cfg.Clock == nil {
		cfg.Clock = clock.NewFake(testNow)
	}
	f, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

const articleHTML = `<html><head><title>Repeaters</title></head><body>
<nav>Home | About | NAVIGATION</nav>
<article><h1>Submarine repeaters</h1>
<p>Repeaters amplify the optical signal every seventy kilometres or so along a submarine cable, powered by a constant current fed from the shore stations at each end of the system.</p>
<p>Each repeater holds erbium-doped fibre amplifiers, one pair for each fibre pair, and is designed to work on the seabed for twenty-five years without maintenance of any kind.</p>
<p>The café at the landing station is where engineers meet.</p>
</article></body></html>`

// pdfFixture returns a document of internal/extract's test files.
func pdfFixture(t *testing.T, name string) string {
	data, err := os.ReadFile(filepath.Join("..", "extract", "testdata", "formats", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// debianPDF is the shared-mime-info specification, as Debian installs it.
func debianPDF(t *testing.T) string { return string(testpdf.Read(t, testpdf.MIMESpec)) }

func TestFetchContentTypes(t *testing.T) {
	latin1 := strings.ReplaceAll(articleHTML, "café", "caf\xe9")
	tests := []struct {
		name        string
		contentType string // "" sends none
		body        string
		wantType    string
		wantTitle   string
		want        []string
		notWant     []string
		wantErr     error
		wantErrText string
		published   string
		modified    string
		author      string
	}{
		{name: "html utf-8", contentType: "text/html; charset=utf-8", body: articleHTML,
			wantType: "text/html", wantTitle: "Repeaters", want: []string{"erbium-doped", "The café"}, notWant: []string{"NAVIGATION", "<p>"}},
		{name: "html with its dates", contentType: "text/html; charset=utf-8",
			body: strings.Replace(articleHTML, "<head>", `<head><meta property="article:published_time" content="2024-03-15T10:00:00+01:00">
<meta property="og:updated_time" content="2024-04-02">`, 1),
			wantType: "text/html", want: []string{"erbium-doped"}, published: "2024-03-15T10:00:00+01:00", modified: "2024-04-02"},
		{name: "html with its author", contentType: "text/html; charset=utf-8",
			body:     strings.Replace(articleHTML, "<head>", `<head><script type="application/ld+json">{"@type":"Article","author":[{"@type":"Person","name":"Jane Doe"},{"name":"John Roe"}]}</script>`, 1),
			wantType: "text/html", want: []string{"erbium-doped"}, author: "Jane Doe; John Roe"},
		{name: "html latin-1 from the header", contentType: "text/html; charset=ISO-8859-1", body: latin1,
			wantType: "text/html", want: []string{"The café"}},
		{name: "html windows-1252 from a meta tag", contentType: "text/html",
			body:     strings.Replace(latin1, "<head>", `<head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252">`, 1),
			wantType: "text/html", want: []string{"The café"}},
		{name: "html utf-8 with a stale meta tag", contentType: "text/html; charset=utf-8",
			body:     strings.Replace(articleHTML, "<head>", `<head><meta charset="iso-8859-1">`, 1),
			wantType: "text/html", want: []string{"The café"}},
		{name: "xhtml", contentType: "application/xhtml+xml", body: articleHTML, wantType: "application/xhtml+xml", want: []string{"erbium-doped"}},
		{name: "plain text as it is", contentType: "text/plain; charset=utf-8", body: "Line one\r\nLine\x1b[31m two\u202e\n\n<b>not html</b>\n",
			wantType: "text/plain", want: []string{"Line one\nLine[31m two\n\n<b>not html</b>"}},
		{name: "plain text latin-1", contentType: "text/plain; charset=iso-8859-1", body: "caf\xe9 cr\xe8me", wantType: "text/plain", want: []string{"café crème"}},
		{name: "markdown", contentType: "text/markdown", body: "# Cables\n\nSee [the map](https://example.com/map).\n",
			wantType: "text/markdown", want: []string{"# Cables\n\nSee [the map](https://example.com/map)."}},
		{name: "sniffed text", contentType: "", body: "just some words, no type declared", wantType: "text/plain", want: []string{"just some words"}},
		{name: "pdf", contentType: "application/pdf", body: pdfFixture(t, "plain.pdf"),
			wantType: "application/pdf", wantTitle: "page", want: []string{"--- page 1 ---\nThe vault code is kept by the harbour master."}},
		{name: "a Debian package's PDF", contentType: "application/pdf", body: debianPDF(t), wantType: "application/pdf",
			want:    []string{"--- page 4 ---\n2.2. The source XML files\n\nEach application provides only a single XML source file", "The default weight value is 50, and the maximum is 100."},
			notWant: []string{"Shared MIME-info Database\n"}},
		{name: "sniffed pdf", contentType: "", body: pdfFixture(t, "plain.pdf"), wantType: "application/pdf", want: []string{"harbour master"}},
		{name: "broken pdf", contentType: "application/pdf", body: "%PDF-1.7\n...", wantErr: ErrNoText, wantErrText: "malformed or truncated PDF"},
		{name: "encrypted pdf", contentType: "application/pdf", body: pdfFixture(t, "encrypted.pdf"), wantErr: ErrNoText, wantErrText: "encrypted PDF"},
		{name: "scanned pdf", contentType: "application/pdf", body: pdfFixture(t, "scan.pdf"), wantErr: ErrNoText, wantErrText: "no text layer"},
		{name: "docx", contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", body: pdfFixture(t, "handbook.docx"),
			wantType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", wantTitle: "Cable Maintenance Handbook", want: []string{"# Returns"},
			author: "python-docx"}, // its dc:creator
		{name: "image", contentType: "image/png", body: "\x89PNG\r\n\x1a\n", wantErr: ErrContentType, wantErrText: "image/png (only HTML, plain text, markdown, PDF"},
		{name: "json", contentType: "application/json", body: `{"a":1}`, wantErr: ErrContentType, wantErrText: "application/json"},
		{name: "empty text", contentType: "text/plain", body: " \n\x00\n", wantErr: ErrNoText},
		{name: "html without text", contentType: "text/html", body: "<html><head><title>t</title></head><body></body></html>", wantErr: ErrNoText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				if tt.contentType == "" {
					w.Header()["Content-Type"] = nil // no sniffing by the server
				} else {
					w.Header().Set("Content-Type", tt.contentType)
				}
				fmt.Fprint(w, tt.body)
			})
			f := newFetcher(t, Config{Allow: []string{s.hostPort()}})
			page, err := f.Fetch(context.Background(), s.URL+"/page")
			if tt.wantErr != nil {
				var fe *Error
				if !errors.Is(err, tt.wantErr) || !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.wantErrText) {
					t.Fatalf("err = %v, want %v containing %q", err, tt.wantErr, tt.wantErrText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256([]byte(tt.body))
			if page.URL != s.URL+"/page" || page.FinalURL != s.URL+"/page" || page.ContentType != tt.wantType ||
				page.SHA256 != hex.EncodeToString(sum[:]) || page.Bytes != len(tt.body) || !page.FetchedAt.Equal(testNow) {
				t.Errorf("page metadata = %+v", page)
			}
			if page.Published != tt.published || page.Modified != tt.modified {
				t.Errorf("dates = %q, %q; want %q, %q", page.Published, page.Modified, tt.published, tt.modified)
			}
			if page.Author != tt.author {
				t.Errorf("author = %q, want %q", page.Author, tt.author)
			}
			if tt.wantTitle != "" && page.Title != tt.wantTitle {
				t.Errorf("title = %q, want %q", page.Title, tt.wantTitle)
			}
			for _, w := range tt.want {
				if !strings.Contains(page.Text, w) {
					t.Errorf("text lacks %q:\n%q", w, page.Text)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(page.Text, w) {
					t.Errorf("text contains %q:\n%q", w, page.Text)
				}
			}
		})
	}
}

func TestBlockedReason(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"127.0.0.1", "loopback"},
		{"127.8.9.10", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"::127.0.0.1", "IPv4-compatible"},
		{"10.0.0.1", "private"},
		{"172.16.5.4", "private"},
		{"172.31.255.255", "private"},
		{"192.168.1.1", "private"},
		{"fc00::1", "private"},
		{"fd12:3456::1", "private"},
		{"169.254.169.254", "cloud metadata"},
		{"::ffff:169.254.169.254", "cloud metadata"},
		{"fd00:ec2::254", "cloud metadata"},
		{"100.100.100.200", "cloud metadata"},
		{"169.254.10.1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"100.64.0.1", "CGNAT"},
		{"100.127.255.254", "CGNAT"},
		{"0.0.0.0", "unspecified"},
		{"::", "unspecified"},
		{"224.0.0.251", "multicast"},
		{"ff02::1", "multicast"},
		{"255.255.255.255", "reserved"},
		{"64:ff9b::a00:1", "private"},           // NAT64 of 10.0.0.1
		{"64:ff9b::7f00:1", "loopback"},         // NAT64 of 127.0.0.1
		{"2002:a9fe:a9fe::1", "cloud metadata"}, // 6to4 of 169.254.169.254
		{"93.184.215.14", ""},
		{"8.8.8.8", ""},
		{"172.32.0.1", ""},
		{"100.128.0.1", ""},
		{"2606:4700::6810:84e5", ""},
		{"64:ff9b::808:808", ""}, // NAT64 of 8.8.8.8
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			if got := blockedReason(netip.MustParseAddr(tt.addr)); got != tt.want {
				t.Errorf("blockedReason(%s) = %q, want %q", tt.addr, got, tt.want)
			}
		})
	}
}

// TestGuard fetches internal addresses with no allowlist: every one is
// refused before anything is sent, whether named by a literal or by a name
// that resolves to it.
func TestGuard(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") })
	port := s.port()
	resolver := fakeResolver{
		"internal.test":  {"127.0.0.1"},
		"metadata.test":  {"169.254.169.254"},
		"mapped.test":    {"::ffff:127.0.0.1"},
		"private.test":   {"10.20.30.40"},
		"mixed.test":     {"127.0.0.1", "10.0.0.1"},
		"localhost.test": {"::1"},
	}
	f := newFetcher(t, Config{Resolver: resolver})
	tests := []struct{ name, url, reason string }{
		{"loopback literal", "http://127.0.0.1:" + port + "/", "loopback"},
		{"loopback decimal form", "http://2130706433:" + port + "/", ""},
		{"IPv6 loopback", "http://[::1]:" + port + "/", "loopback"},
		{"private", "http://10.1.2.3/", "private"},
		{"cloud metadata", "http://169.254.169.254/latest/meta-data/", "cloud metadata"},
		{"unspecified", "http://0.0.0.0:" + port + "/", "unspecified"},
		{"name resolving to loopback", "http://internal.test:" + port + "/", "loopback"},
		{"name resolving to metadata", "http://metadata.test/latest/meta-data/", "cloud metadata"},
		{"name resolving to mapped loopback", "http://mapped.test:" + port + "/", "loopback"},
		{"name resolving to private", "https://private.test/", "private"},
		{"name resolving to several internal", "http://mixed.test:" + port + "/", "loopback"},
		{"name resolving to IPv6 loopback", "http://localhost.test:" + port + "/", "loopback"},
		{"allowlisted port, other host", "http://127.0.0.2:" + port + "/", "loopback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), tt.url)
			if tt.reason == "" { // not a valid address at all: any error, no request
				if err == nil {
					t.Fatal("fetched")
				}
				return
			}
			var ae *AddrError
			if !errors.Is(err, ErrBlocked) || !errors.As(err, &ae) || ae.Reason != tt.reason {
				t.Fatalf("err = %v, want ErrBlocked (%s)", err, tt.reason)
			}
			if !strings.Contains(err.Error(), "--fetch-allow") {
				t.Errorf("error does not say how to open the host: %v", err)
			}
		})
	}
	if n := s.hits.Load(); n != 0 {
		t.Errorf("the internal server answered %d requests", n)
	}
}

// TestRedirectGuard follows redirects from an allowlisted server to
// internal addresses: each is refused, and the internal server is never
// reached.
func TestRedirectGuard(t *testing.T) {
	internal := newServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") })
	var redirects sync.Map
	public := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if to, ok := redirects.Load(r.URL.Path); ok {
			http.Redirect(w, r, to.(string), http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "arrived at "+r.URL.Path)
	})
	p := internal.port()
	f := newFetcher(t, Config{
		Allow:    []string{public.hostPort()},
		Resolver: fakeResolver{"rebind.test": {"127.0.0.1"}, "meta.test": {"169.254.169.254"}},
	})
	tests := []struct{ name, to, reason string }{
		{"to loopback", "http://127.0.0.1:" + p + "/", "loopback"},
		{"to IPv6 loopback", "http://[::1]:" + p + "/", "loopback"},
		{"to private", "http://10.0.0.7/admin", "private"},
		{"to cloud metadata", "http://169.254.169.254/latest/meta-data/iam/", "cloud metadata"},
		{"to a name resolving to loopback", "http://rebind.test:" + p + "/", "loopback"},
		{"to a name resolving to metadata", "http://meta.test/latest/", "cloud metadata"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := fmt.Sprintf("/r%d", i)
			redirects.Store(path, tt.to)
			_, err := f.Fetch(context.Background(), public.URL+path)
			var ae *AddrError
			if !errors.Is(err, ErrBlocked) || !errors.As(err, &ae) || ae.Reason != tt.reason {
				t.Fatalf("err = %v, want ErrBlocked (%s)", err, tt.reason)
			}
		})
	}
	if n := internal.hits.Load(); n != 0 {
		t.Errorf("the internal server answered %d requests", n)
	}

	t.Run("to file", func(t *testing.T) {
		redirects.Store("/file", "file:///etc/passwd")
		_, err := f.Fetch(context.Background(), public.URL+"/file")
		if !errors.Is(err, ErrScheme) {
			t.Fatalf("err = %v, want ErrScheme", err)
		}
	})
	t.Run("five redirects are followed", func(t *testing.T) {
		for i := range 5 {
			redirects.Store(fmt.Sprintf("/five%d", i), fmt.Sprintf("/five%d", i+1))
		}
		page, err := f.Fetch(context.Background(), public.URL+"/five0")
		if err != nil {
			t.Fatal(err)
		}
		if page.FinalURL != public.URL+"/five5" || page.URL != public.URL+"/five0" || page.Text != "arrived at /five5" {
			t.Errorf("page = %+v", page)
		}
	})
	t.Run("six are too many", func(t *testing.T) {
		for i := range 6 {
			redirects.Store(fmt.Sprintf("/six%d", i), fmt.Sprintf("/six%d", i+1))
		}
		_, err := f.Fetch(context.Background(), public.URL+"/six0")
		if !errors.Is(err, ErrTooManyRedirects) {
			t.Fatalf("err = %v, want ErrTooManyRedirects", err)
		}
	})
}

func TestAllowByName(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "docs for "+r.Host)
	})
	f := newFetcher(t, Config{
		Allow:    []string{"Docs.Internal.:" + s.port()},
		Resolver: fakeResolver{"docs.internal": {"127.0.0.1"}},
	})
	page, err := f.Fetch(context.Background(), "http://docs.internal:"+s.port()+"/")
	if err != nil {
		t.Fatal(err)
	}
	if page.Text != "docs for docs.internal:"+s.port() {
		t.Errorf("text = %q", page.Text)
	}
	// The allowlist opens that port only.
	if _, err := f.Fetch(context.Background(), "http://docs.internal:1/"); !errors.Is(err, ErrBlocked) {
		t.Errorf("other port: err = %v, want ErrBlocked", err)
	}
}

func TestBadConfig(t *testing.T) {
	for _, e := range []string{"localhost", "http://localhost:80", ":80", "[::1]"} {
		if _, err := New(Config{Allow: []string{e}}); err == nil || !strings.Contains(err.Error(), e) {
			t.Errorf("New(Allow %q) err = %v, want an error naming it", e, err)
		}
	}
}

func TestFetchErrors(t *testing.T) {
	big := strings.Repeat("x", 2048)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			http.NotFound(w, r)
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, big)
		case "/big-chunked":
			w.Header().Set("Content-Type", "text/plain")
			for range 4 {
				fmt.Fprint(w, big[:512])
				w.(http.Flusher).Flush()
			}
			fmt.Fprint(w, "x")
		}
	})
	f := newFetcher(t, Config{Allow: []string{s.hostPort()}, MaxBytes: 2047})
	tests := []struct {
		name, url string
		want      error
		stage     string
	}{
		{"not found", s.URL + "/missing", ErrStatus, "status"},
		{"too large", s.URL + "/big", ErrTooLarge, "read"},
		{"too large without a length", s.URL + "/big-chunked", ErrTooLarge, "read"},
		{"file", "file:///etc/passwd", ErrScheme, "url"},
		{"javascript", "javascript:alert(1)", ErrScheme, "url"},
		{"data", "data:text/html,<script>x</script>", ErrScheme, "url"},
		{"ftp", "ftp://example.com/a", ErrScheme, "url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), tt.url)
			var fe *Error
			if !errors.Is(err, tt.want) || !errors.As(err, &fe) || fe.Step != tt.stage || fe.URL != tt.url {
				t.Fatalf("err = %v (%#v), want %v at stage %s", err, fe, tt.want, tt.stage)
			}
		})
	}
}

// TestCacheShared fetches one page from many goroutines at once: the server
// sees one request and every caller gets the page.
func TestCacheShared(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "shared page")
	})
	f := newFetcher(t, Config{Allow: []string{s.hostPort()}})
	waits := make(chan struct{}, 16)
	f.waitHook = func() { waits <- struct{}{} }
	const callers = 8
	var wg sync.WaitGroup
	pages := make([]Page, callers)
	errs := make([]error, callers)
	for i := range callers {
		wg.Go(func() { pages[i], errs[i] = f.Fetch(context.Background(), s.URL+"/p") })
	}
	<-started
	// Every caller is either the one fetching or waiting on it; wait until
	// all have registered before releasing the server.
	for range callers - 1 {
		<-waits
	}
	close(release)
	wg.Wait()
	for i := range callers {
		if errs[i] != nil || pages[i].Text != "shared page" {
			t.Errorf("caller %d: %+v, %v", i, pages[i], errs[i])
		}
	}
	if _, err := f.Fetch(context.Background(), s.URL+"/p"); err != nil {
		t.Fatal(err)
	}
	if n := s.hits.Load(); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

// TestStalledFetchCancelled: a caller whose context ends while the server
// stalls returns at once; its failure is not cached, so a waiting caller
// fetches the page itself.
func TestStalledFetchCancelled(t *testing.T) {
	first := make(chan struct{})
	stop := make(chan struct{})
	var requests atomic.Int32
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		// The first request (counted, not raced for: a non-blocking send
		// lost to a test not yet waiting let it through) tells the test
		// and stalls until the test ends.
		if requests.Add(1) == 1 {
			first <- struct{}{}
			select {
			case <-stop:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "second try")
	})
	defer close(stop)
	f := newFetcher(t, Config{Allow: []string{s.hostPort()}})
	waits := make(chan struct{}, 4)
	f.waitHook = func() { waits <- struct{}{} }
	ctx, cancel := context.WithCancel(context.Background())
	leaderErr := make(chan error, 1)
	go func() {
		_, err := f.Fetch(ctx, s.URL+"/slow")
		leaderErr <- err
	}()
	<-first // the server is stalling the first fetch
	waiter := make(chan Page, 1)
	go func() {
		p, _ := f.Fetch(context.Background(), s.URL+"/slow")
		waiter <- p
	}()
	<-waits
	cancel()
	if err := <-leaderErr; !errors.Is(err, context.Canceled) {
		t.Fatalf("leader err = %v, want context.Canceled", err)
	}
	if p := <-waiter; p.Text != "second try" {
		t.Errorf("waiter got %+v", p)
	}
}
