package fetch

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"
)

// BenchmarkFetchCached is the cost of a page another agent already fetched.
func BenchmarkFetchCached(b *testing.B) {
	s := newBenchServer(b)
	f, err := New(Config{Allow: []string{s.Listener.Addr().String()}})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	if _, err := f.Fetch(ctx, s.URL+"/a"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Fetch(ctx, s.URL+"/a"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFetchHTML is a first fetch of an HTML page from a local server:
// the guard, the request, charset decoding and main-text extraction.
func BenchmarkFetchHTML(b *testing.B) {
	s := newBenchServer(b)
	f, err := New(Config{Allow: []string{s.Listener.Addr().String()}})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	b.SetBytes(int64(len(articleHTML)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, err := f.Fetch(ctx, s.URL+"/a?i="+strconv.Itoa(i)); err != nil {
			b.Fatal(err)
		}
	}
}

func newBenchServer(b *testing.B) *server {
	s := &server{}
	s.Server = newHTTPTestServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, articleHTML)
	}))
	b.Cleanup(s.Close)
	return s
}
