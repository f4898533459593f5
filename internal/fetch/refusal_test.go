package fetch

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

// serverResolver fails every lookup as a real resolver does, naming the
// DNS server it asked.
type serverResolver struct{}

func (serverResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	return nil, &net.DNSError{Err: "no such host", Name: host, Server: "10.0.0.53:53", IsNotFound: true}
}

// TestRefusalNamesTarget (issue 18, #18): a refused fetch names what was
// refused — the redirect's target, with its port, not the allowed URL the
// fetch began at — and a DNS failure does not pass the resolver's own
// address on to the model that reads the error.
func TestRefusalNamesTarget(t *testing.T) {
	internal := newServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") })
	public := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:"+internal.port()+"/admin", http.StatusFound)
	})
	f := newFetcher(t, Config{Allow: []string{public.hostPort()}, Resolver: fakeResolver{"rebind.test": {"127.0.0.1"}}})
	for _, tc := range []struct {
		name, url string
		want      []string
	}{
		{"a redirect to loopback", public.URL + "/go", []string{"redirect", `"http://127.0.0.1:` + internal.port() + `/admin"`, "127.0.0.1:" + internal.port()}},
		{"a name resolving to loopback", "http://rebind.test:" + internal.port() + "/x", []string{"127.0.0.1:" + internal.port(), "rebind.test"}},
		{"a loopback literal", "http://[::1]:" + internal.port() + "/x", []string{"[::1]:" + internal.port()}},
	} {
		_, err := f.Fetch(context.Background(), tc.url)
		if err == nil {
			t.Fatalf("%s: fetched", tc.name)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not name %s", tc.name, err, w)
			}
		}
	}
	f = newFetcher(t, Config{Resolver: serverResolver{}})
	_, err := f.Fetch(context.Background(), "http://nowhere.example/")
	if err == nil || strings.Contains(err.Error(), "10.0.0.53") || !strings.Contains(err.Error(), "nowhere.example") {
		t.Errorf("a DNS failure reads %q", err)
	}
	if n := internal.hits.Load(); n != 0 {
		t.Errorf("the internal server answered %d requests", n)
	}
}
