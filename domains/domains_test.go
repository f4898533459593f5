package domains

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestPolicyCheck(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		allow, deny []string
		url         string
		ok          bool
	}{
		{"nothing set", nil, nil, "https://a.example.com/x", true},
		{"domain denies subdomains", nil, []string{"example.com"}, "https://A.Example.COM./x", false},
		{"domain denies itself", nil, []string{"example.com"}, "https://example.com", false},
		{"domain is no suffix of another", nil, []string{"example.com"}, "https://badexample.com", true},
		{"wildcard denies subdomains only", nil, []string{"*.example.com"}, "https://example.com/", true},
		{"wildcard denies a subdomain", nil, []string{"*.example.com"}, "https://www.example.com/", false},
		{"port is ignored", nil, []string{"example.com:8080"}, "http://example.com:9090/", false},
		{"path prefix", nil, []string{"example.org/blog"}, "https://example.org/blog/post", false},
		{"path prefix on a segment", nil, []string{"example.org/blog"}, "https://example.org/blogroll", true},
		{"path glob", nil, []string{"example.org/path*"}, "https://example.org/pathology", false},
		{"path glob elsewhere", nil, []string{"example.org/path*"}, "https://example.org/other", true},
		{"scheme in pattern", nil, []string{"https://example.org"}, "http://example.org/", false},
		{"inner wildcard", nil, []string{"docs.*"}, "https://docs.python.org/3/", false},
		{"allow list lets in", []string{"*.gov"}, nil, "https://www.nist.gov/", true},
		{"allow list keeps out", []string{"*.gov"}, nil, "https://example.com/", false},
		{"deny wins over allow", []string{"*.gov"}, []string{"bad.gov"}, "https://www.bad.gov/", false},
		{"no host passes", []string{"*.gov"}, nil, "file:///docs/a.md", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := NewPolicy(c.allow, c.deny)
			if err != nil {
				t.Fatal(err)
			}
			err = p.Check(c.url)
			if (err == nil) != c.ok {
				t.Fatalf("Check(%q) = %v, want ok=%v", c.url, err, c.ok)
			}
			if err != nil && !errors.Is(err, ErrDenied) {
				t.Fatalf("Check error %v does not wrap ErrDenied", err)
			}
		})
	}
}

func TestNarrowNeverWidens(t *testing.T) {
	t.Parallel()
	base, err := NewPolicy(nil, []string{"evil.example"})
	if err != nil {
		t.Fatal(err)
	}
	// A request that allows the denied domain cannot bring it back.
	req, err := base.Narrow([]string{"evil.example", "good.example"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if req.Permits("https://evil.example/") {
		t.Error("a request's allow list undid the configured deny")
	}
	if !req.Permits("https://good.example/") || req.Permits("https://other.example/") {
		t.Error("the request's allow list is not applied")
	}
	if base.Permits("https://evil.example/") || !base.Permits("https://other.example/") {
		t.Error("Narrow changed the policy it narrowed")
	}
	ctx := NewContext(context.Background(), req)
	if FromContext(ctx) != req || FromContext(context.Background()) != nil {
		t.Error("the policy does not travel in the context")
	}
}

func TestPatternErrors(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "*", "*.", "exa mple.com", "a**.com", "example.com/?q", "/path"} {
		if _, err := NewPolicy(nil, []string{"ok.com", bad}); !errors.Is(err, ErrPattern) {
			t.Errorf("pattern %q: err = %v, want ErrPattern", bad, err)
		}
	}
}

func TestTiers(t *testing.T) {
	t.Parallel()
	tb := Builtin()
	cases := map[string]Tier{
		"https://www.rfc-editor.org/rfc/rfc9110":             Primary,
		"https://www.nist.gov/publications":                  Primary,
		"https://docs.python.org/3/library/asyncio.html":     Primary,
		"https://www.nature.com/articles/s41586-024-1":       Primary,
		"https://www.nature.com/articles/d41586-024-00001-1": News, // the more specific pattern
		"https://www.reuters.com/technology/x":               News,
		"https://stackoverflow.com/questions/1":              Forum,
		"https://forum.mit.edu/t/1":                          Forum, // forum.* is more specific than *.edu
		"https://github.com/golang/go/issues/1":              Forum,
		"https://github.com/golang/go":                       "",
		"https://www.ehow.com/how_1.html":                    ContentFarm,
		"https://example.com/":                               "",
		"file:///a.md":                                       "",
	}
	for u, want := range cases {
		if got := tb.Of(u); got != want {
			t.Errorf("Of(%q) = %q, want %q", u, got, want)
		}
	}
	over, err := tb.Override(map[string]string{"stackoverflow.com": "primary", "example.com": "content_farm"})
	if err != nil {
		t.Fatal(err)
	}
	if got := over.Of("https://stackoverflow.com/q/1"); got != Primary {
		t.Errorf("override: %q", got)
	}
	if got := over.Of("https://example.com/"); got != ContentFarm {
		t.Errorf("override: %q", got)
	}
	if tb.Of("https://stackoverflow.com/q/1") != Forum {
		t.Error("Override changed the table it overrode")
	}
	if _, err := tb.Override(map[string]string{"x.com": "gospel"}); err == nil {
		t.Error("an unknown tier was accepted")
	}
	if !Forum.Low() || !ContentFarm.Low() || Primary.Low() || Tier("").Low() {
		t.Error("Low")
	}
}

func TestParseTable(t *testing.T) {
	t.Parallel()
	tb, err := ParseTable([]byte("primary: [intranet.example]\nforum: ['*.example']\n"))
	if err != nil {
		t.Fatal(err)
	}
	if tb.Len() != 2 || tb.Of("https://intranet.example/") != Primary || tb.Of("https://x.example/") != Forum || tb.Of("https://w3.org/") != "" {
		t.Errorf("a replaced table: %d rules, %q %q %q", tb.Len(), tb.Of("https://intranet.example/"), tb.Of("https://x.example/"), tb.Of("https://w3.org/"))
	}
	for name, data := range map[string]string{
		"unknown tier": "gospel: [a.com]\n",
		"twice":        "primary: [a.com]\nnews: [A.com]\n",
		"bad pattern":  "news: ['a b']\n",
		"not a map":    "- a.com\n",
	} {
		if _, err := ParseTable([]byte(data)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestGlob(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pat, s string
		ok     bool
	}{{"*", "", true}, {"a*c", "abbbc", true}, {"a*c", "abbb", false}, {"*a*b", "xaxxb", true}, {"a", "ab", false}, {"docs.*", "docs.", true}} {
		if glob(c.pat, c.s) != c.ok {
			t.Errorf("glob(%q, %q) != %v", c.pat, c.s, c.ok)
		}
	}
}

// FuzzPolicy holds the policy to its invariants for any pattern and URL:
// nothing panics; a policy that denies a URL's own host refuses the URL,
// whatever its allow list; a narrowed policy never lets through what the
// policy it narrows refused.
func FuzzPolicy(f *testing.F) {
	f.Add("example.com", "*.gov", "https://www.example.com/a/b?c#d")
	f.Add("docs.*", "example.org/path*", "http://docs.python.org:8080/3/")
	f.Add("a*b*c", "", "https://abc/")
	f.Fuzz(func(t *testing.T, deny, allow, raw string) {
		base, err := NewPolicy(nil, []string{deny})
		if err != nil {
			return
		}
		narrowed, err := base.Narrow([]string{allow}, nil)
		if err != nil {
			return
		}
		if !base.Permits(raw) && narrowed.Permits(raw) {
			t.Fatalf("narrowing by allow %q let in %q, which deny %q refused", allow, raw, deny)
		}
		host, _, ok := hostPath(raw)
		if !ok || host == "" || strings.Trim(host, "*.") == "" || strings.Contains(host, "**") {
			return
		}
		own, err := NewPolicy([]string{allow}, []string{host})
		if err != nil {
			return
		}
		if own.Permits(raw) {
			t.Fatalf("denying %q lets %q through", host, raw)
		}
		_ = Builtin().Of(raw)
	})
}

// TestListsCheck: a request's lists are refused past their bounds or
// with a malformed pattern, naming the list; nil and sound lists pass.
func TestListsCheck(t *testing.T) {
	t.Parallel()
	many := make([]string, MaxPatterns+1)
	for i := range many {
		many[i] = "example.com"
	}
	cases := []struct {
		name  string
		l     *Lists
		field string // "" when it passes
	}{
		{"nil", nil, ""},
		{"sound", &Lists{Allow: []string{"*.gov"}, Deny: []string{"example.org/blog"}}, ""},
		{"too many", &Lists{Deny: many}, "domains.deny"},
		{"too long", &Lists{Allow: []string{strings.Repeat("a", MaxPatternBytes+1) + ".com"}}, "domains.allow"},
		{"malformed", &Lists{Deny: []string{"a b"}}, "domains"},
	}
	for _, c := range cases {
		err := c.l.Check()
		var le *ListError
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.field != "" && !errors.As(err, &le):
			t.Errorf("%s: got %v, want a *ListError", c.name, err)
		case c.field != "" && le.Field != c.field:
			t.Errorf("%s: field %q, want %q (%v)", c.name, le.Field, c.field, err)
		}
	}
}
