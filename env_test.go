package deepresearch_test

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/web"
)

// envReaders are the functions that read the process environment.
var envReaders = map[string][]string{
	"os":      {"Getenv", "LookupEnv", "Environ", "ExpandEnv"},
	"syscall": {"Getenv", "Environ"},
}

// readsEnv allows a library file (by its path below the module) to read
// the environment, saying why.
var readsEnv = map[string]string{
	"internal/pdfprint/pdfcheck/pdfcheck.go": "CI: a helper only tests import, which fails rather than skips a test whose PDF tools are missing when .ci/run should have installed them",
}

// TestNoEnvironment: the library reads no environment variable. Only
// cmd/ and config/ (which maps the environment onto settings) do, and the
// files readsEnv names, for the reason it gives; tests may.
func TestNoEnvironment(t *testing.T) {
	t.Parallel()
	used := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		path = filepath.ToSlash(path)
		if d.IsDir() {
			switch {
			case path == ".":
			case path == "cmd", path == "config", d.Name() == "testdata", strings.HasPrefix(d.Name(), "."), strings.HasPrefix(d.Name(), "_"):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for _, call := range envCalls(t, path) {
			if _, ok := readsEnv[path]; ok {
				used[path] = true
				continue
			}
			t.Errorf("%s reads the environment: library code takes its settings from Config (read variables in cmd/ or config/)", call)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for path := range readsEnv {
		if !used[path] {
			t.Errorf("readsEnv lets %s read the environment, which it no longer does: strike it", path)
		}
	}
}

// envCalls returns "file:line: pkg.Func" for each use of an envReaders
// function in the file at path.
func envCalls(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{} // the name a file gives a package → its path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := envReaders[p]; !ok {
			continue
		}
		name := p
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = p
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if p, ok := names[x.Name]; ok && slices.Contains(envReaders[p], sel.Sel.Name) {
			out = append(out, fset.Position(sel.Pos()).String()+": "+p+"."+sel.Sel.Name)
		}
		return true
	})
	return out
}

// TestKeysFromConfig: the library's web engines take their key or
// address as an argument only, whatever the process environment holds;
// config.ResearcherConfig builds them from the settings' environment (the
// process's, or Settings.Env when set), the settings file's address
// first, and says which variable is missing.
func TestKeysFromConfig(t *testing.T) {
	t.Setenv("TAVILY_API_KEY", "tv-from-the-process")
	if _, err := web.Tavily("", web.Options{}); !errors.Is(err, web.ErrNoKey) || !strings.Contains(err.Error(), "TAVILY_API_KEY") {
		t.Errorf("web.Tavily without a key, the variable set: %v; want ErrNoKey naming the variable", err)
	}
	if _, err := web.Tavily("tv-given", web.Options{}); err != nil {
		t.Errorf("web.Tavily with a key: %v", err)
	}
	for _, tt := range []struct {
		name string
		env  map[string]string
		ok   bool
	}{
		{"the process environment", nil, true},
		{"the settings' own", map[string]string{"TAVILY_API_KEY": "tv-settings"}, true},
		{"none", map[string]string{}, false},
	} {
		s := config.Defaults()
		s.Env, s.Search.Providers = tt.env, []string{"tavily"}
		_, err := config.ResearcherConfig(s, nil)
		if tt.ok != (err == nil) || (err != nil && (!errors.Is(err, deepresearch.ErrConfig) || !strings.Contains(err.Error(), "TAVILY_API_KEY"))) {
			t.Errorf("%s: %v; want ok %v, or a configuration error naming TAVILY_API_KEY", tt.name, err, tt.ok)
		}
	}

	// SearXNG's address: the settings file's first, else the variable's.
	fromFile, err := deepresearchtest.NewWebServer(search.Document{Title: "File", Text: "The cable ship Monarch laid the line."})
	if err != nil {
		t.Fatal(err)
	}
	defer fromFile.Close()
	fromEnv, err := deepresearchtest.NewWebServer(search.Document{Title: "Env", Text: "The cable ship Monarch laid the line."})
	if err != nil {
		t.Fatal(err)
	}
	defer fromEnv.Close()
	for _, tt := range []struct {
		name, file, want string
	}{
		{"the file's address first", fromFile.URL, "File"},
		{"else the variable's", "", "Env"},
	} {
		s := config.Defaults()
		s.Env = map[string]string{"SEARXNG_URL": fromEnv.URL}
		s.Search.Providers, s.Search.SearxngURL = []string{"searxng"}, tt.file
		cfg, err := config.ResearcherConfig(s, nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		res, err := cfg.Search.Search(context.Background(), "cable ship", 5)
		if err != nil || len(res) == 0 || res[0].Title != tt.want {
			t.Errorf("%s: %+v, %v; want the %s server's result", tt.name, res, err, tt.want)
		}
	}
}
