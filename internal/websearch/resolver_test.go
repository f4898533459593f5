package websearch_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/internal/websearch"
)

// dnsFailure fails every request as a real client does when the name
// does not resolve, naming the DNS server it asked.
type dnsFailure struct{}

func (dnsFailure) RoundTrip(r *http.Request) (*http.Response, error) {
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: r.URL.Hostname(), Server: "10.0.0.53:53", IsNotFound: true}}
}

// TestSearchErrorHidesResolver (issue 18, #18): a search that fails to
// resolve its provider says which name failed, not which DNS server this
// machine asked: the error reaches the model as a tool result.
func TestSearchErrorHidesResolver(t *testing.T) {
	e, err := websearch.New("searxng", websearch.Config{SearXNGURL: "http://searx.invalid:8888", Client: &http.Client{Transport: dnsFailure{}},
		Retries: -1, Clock: clock.NewFake(testNow)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Search(context.Background(), testQuery, 3)
	if err == nil || strings.Contains(err.Error(), "10.0.0.53") || !strings.Contains(err.Error(), "searx.invalid") {
		t.Errorf("Search error %q", err)
	}
}
