package fetch

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/deepresearch/deepresearch/domains"
)

// TestDomainPolicy: the policy in the context refuses a denied URL before
// any request, and a redirect to a denied domain before it is followed,
// at every hop.
func TestDomainPolicy(t *testing.T) {
	t.Parallel()
	var denied atomic.Int64
	var srv *server
	srv = newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Host == "bad.test:"+srv.port():
			denied.Add(1)
			w.Write([]byte("secret text from a denied domain"))
		case r.URL.Path == "/hop1":
			http.Redirect(w, r, "http://good.test:"+srv.port()+"/hop2", http.StatusFound)
		case r.URL.Path == "/hop2":
			http.Redirect(w, r, "http://www.bad.test:"+srv.port()+"/page", http.StatusMovedPermanently)
		case r.URL.Path == "/blocked/x":
			denied.Add(1)
			w.Write([]byte("a denied path"))
		case r.URL.Path == "/to-path":
			http.Redirect(w, r, "/blocked/x", http.StatusFound)
		default:
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("plain text from an allowed page"))
		}
	})
	res := fakeResolver{"good.test": {"127.0.0.1"}, "bad.test": {"127.0.0.1"}, "www.bad.test": {"127.0.0.1"}}
	f := newFetcher(t, Config{Resolver: res, Allow: []string{"good.test:" + srv.port(), "bad.test:" + srv.port(), "www.bad.test:" + srv.port()}})
	policy, err := domains.NewPolicy(nil, []string{"bad.test", "good.test/blocked"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := domains.NewContext(context.Background(), policy)
	base := "http://good.test:" + srv.port()
	cases := []struct {
		name, url, step string
	}{
		{"denied domain", "http://bad.test:" + srv.port() + "/page", "domain"},
		{"redirect to a denied subdomain, second hop", base + "/hop1", "redirect"},
		{"redirect to a denied path", base + "/to-path", "redirect"},
		{"denied path", base + "/blocked/x", "domain"},
	}
	for _, c := range cases {
		_, err := f.Fetch(ctx, c.url)
		var fe *Error
		if !errors.Is(err, domains.ErrDenied) || !errors.As(err, &fe) || fe.Step != c.step {
			t.Errorf("%s: err = %v, want a %q *Error wrapping domains.ErrDenied", c.name, err, c.step)
		}
		if err != nil && !strings.Contains(err.Error(), "search.domains") {
			t.Errorf("%s: the error %q does not name the setting", c.name, err)
		}
	}
	if n := denied.Load(); n != 0 {
		t.Errorf("%d requests reached a denied URL", n)
	}
	p, err := f.Fetch(ctx, base+"/fine")
	if err != nil || !strings.Contains(p.Text, "allowed page") {
		t.Fatalf("an allowed page: %v %q", err, p.Text)
	}
	// Without a policy in the context, the same fetcher reads the page.
	if p, err := newFetcher(t, Config{Resolver: res, Allow: []string{"bad.test:" + srv.port()}}).Fetch(context.Background(), "http://bad.test:"+srv.port()+"/page"); err != nil || !strings.Contains(p.Text, "secret") {
		t.Fatalf("no policy: %v %q", err, p.Text)
	}
}
