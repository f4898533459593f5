package deepresearch_test

import (
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

// TestKeysFromConfig: New takes the web engines' keys and address from
// Config only, whatever the process environment holds; config.ResearcherConfig's
// Config carries them from the settings' environment (the process's, or
// Settings.Env when set), the settings file's address first.
func TestKeysFromConfig(t *testing.T) {
	t.Setenv("TAVILY_API_KEY", "tv-from-the-process")
	t.Setenv("SEARXNG_URL", "http://searx.process.example")
	dir := t.TempDir()
	build := func(cfg deepresearch.Config) error {
		cfg.IndexPath = filepath.Join(dir, "index.db")
		r, err := deepresearch.New(cfg)
		if err == nil {
			r.Close()
		}
		return err
	}
	err := build(deepresearch.Config{SearchEngines: []string{"tavily"}})
	if !errors.Is(err, deepresearch.ErrConfig) || !strings.Contains(err.Error(), "TavilyKey") {
		t.Errorf("tavily without Config.TavilyKey, the variable set: %v; want a configuration error naming TavilyKey", err)
	}
	if err := build(deepresearch.Config{SearchEngines: []string{"tavily"}, TavilyKey: "tv-given"}); err != nil {
		t.Errorf("tavily with Config.TavilyKey: %v", err)
	}

	tests := []struct {
		name                string
		env                 map[string]string
		searxng             string // search.searxng_url
		wantTavily, wantURL string
	}{
		{"the process environment", nil, "", "tv-from-the-process", "http://searx.process.example"},
		{"the settings' own", map[string]string{"TAVILY_API_KEY": "tv-settings", "EXA_API_KEY": "exa-settings",
			"BRAVE_API_KEY": "br-settings", "CHROMA_API_KEY": "ck-settings", "CHROMA_URL": "http://chroma.example"},
			"", "tv-settings", ""},
		{"none", map[string]string{}, "", "", ""},
		{"the file's address first", nil, "http://searx.file.example", "tv-from-the-process", "http://searx.file.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := config.Defaults()
			s.Env, s.Search.SearxngURL = tt.env, tt.searxng
			cfg, err := config.ResearcherConfig(s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.TavilyKey != tt.wantTavily || cfg.SearXNGURL != tt.wantURL {
				t.Errorf("TavilyKey %q, SearXNGURL %q; want %q, %q", cfg.TavilyKey, cfg.SearXNGURL, tt.wantTavily, tt.wantURL)
			}
			if tt.env != nil && (cfg.ExaKey != tt.env["EXA_API_KEY"] || cfg.BraveKey != tt.env["BRAVE_API_KEY"] ||
				cfg.Chroma.Token != tt.env["CHROMA_API_KEY"] || cfg.Chroma.URL != tt.env["CHROMA_URL"]) {
				t.Errorf("ExaKey %q, BraveKey %q, Chroma %+v; want the settings' environment's", cfg.ExaKey, cfg.BraveKey, cfg.Chroma)
			}
		})
	}
}
