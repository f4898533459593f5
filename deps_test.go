package deepresearch_test

import (
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// goList runs the go command's list in the module root.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), append([]string{"list"}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list %v: %v\n%s", args, err, ee.Stderr)
		}
		t.Fatalf("go list %v: %v", args, err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

const module = "github.com/deepresearch/deepresearch"

// reaches names, for each package of the module outside internal/ (by its
// path below the module; "." is the root), the packages of internal/ it
// may import (non-test imports, by their path below internal/). It is
// today's set: a package that reaches into one more is a decision to make
// here, in the open, not a line that slips through a review.
var reaches = map[string][]string{
	".": {"agent", "canon", "citeproc", "collapse", "defaults", "extractive",
		"engine", "fetch", "finalreport", "journal", "mdtext", "memstore", "output", "pdfprint", "provider", "relevance", "retry", "runpack", "sourcetext",
		"telemetry", "usage", "verify"},
	"cite":                               {"canon", "citeproc", "collapse"},
	"cmd/deepresearch":                   {"eval", "jsonkind", "termsafe"},
	"cmd/deepresearch/internal/progress": {},
	"config":                             {"citeproc", "corpus", "defaults", "output", "provider", "termsafe", "websearch"},
	"corpus":                             {"corpus", "defaults", "retry", "vector"},
	"mcpsource":                          {"excerpt", "extract", "sourcetext", "terms"},
	"runstore":                           {"usage"},
	"search":                             {},
	"source":                             {"sourcetext"},
	"web":                                {"fetch", "journal", "retry", "websearch"},
	"worker":                             {"agent"},
	"config/load":                        {},
	"deepresearchtest":                   {"extractive", "memstore", "openaiwire", "purpose", "relevance", "terms", "usage", "verify"},
	"clock":                              {},
	"diff":                               {},
	"domains":                            {},
	"e2e":                                {},
	"e2e/askingmodel":                    {},
	"e2e/webdouble":                      {},
	"events":                             {},
	"httpapi":                            {"defaults", "jsonkind", "openaiwire"},
	"mcpserver":                          {"canon"},
	"natsrun":                            {"telemetry"},
	"recheck":                            {},
	"relay":                              {},
	"render":                             {"bib", "canon", "citeproc", "mdtext", "output", "pdfprint", "sourcetext"},
	"sqlitestore":                        {"usage"},
	"verify":                             {"output", "verify"},
}

// leaves are the public packages that stand alone, each with the modules
// outside the standard library it may link: a program that imports one
// links no store, PDF engine, spreadsheet library or model provider.
// They import no other package of the module outside internal/, and
// internal/ may import them (they are the vocabulary it shares).
var leaves = map[string][]string{
	// source is what a report cites (Source, Location, Passage,
	// Relevance): every other leaf and stage shares it, and it links
	// nothing outside the standard library.
	"source": {},
	"events": {},
	"search": {},
	// runstore's Run counts its usage (internal/usage), which links
	// langchaingo's llms as verify does.
	"runstore": {"github.com/dlclark/regexp2", "github.com/google/uuid", "github.com/pkoukk/tiktoken-go", "github.com/pkoukk/tiktoken-go-loader", "github.com/tmc/langchaingo"},
	"cite":     {"github.com/yuin/goldmark", "golang.org/x/net", "golang.org/x/text"},
	// verify's Options.Model is an llms.Model: langchaingo's llms, with
	// what it links (regexp2, uuid, tiktoken-go), but no provider.
	"verify": {"github.com/dlclark/regexp2", "github.com/google/uuid", "github.com/pkoukk/tiktoken-go", "github.com/tmc/langchaingo",
		"github.com/yuin/goldmark", "go.yaml.in/yaml/v3", "golang.org/x/net", "golang.org/x/text"},
	// diff and recheck are the results of comparing two runs and of
	// reading a report's sources again: data and their text form.
	"diff":    {},
	"recheck": {},
	// clock is the program's clock (Config.Clock) and the fake tests move.
	"clock": {},
	// relay is how a person's word about a run crosses between processes
	// that share a run store: the contract a store implements and its
	// wire forms, which Runs makes and reads.
	"relay": {},
	// domains is the domain policy and the source tiers: pure, with its
	// built-in tier table in YAML.
	"domains": {"go.yaml.in/yaml/v3"},
	// worker is the protocol between a run and the runner of its agents:
	// a worker process speaks it without the root (a leaf imports no
	// package of the module but leaves), linking what the agent's task
	// and output link (internal/agent: langchaingo's llms, goldmark, conc).
	"worker": {"github.com/dlclark/regexp2", "github.com/google/uuid", "github.com/pkoukk/tiktoken-go", "github.com/pkoukk/tiktoken-go-loader",
		"github.com/sourcegraph/conc", "github.com/tmc/langchaingo", "github.com/yuin/goldmark", "go.yaml.in/yaml/v3", "golang.org/x/net", "golang.org/x/text"},
	// render is what a report renders as (formats, options, the JSON
	// document and its schema, reference lists): it links the markdown
	// and schema libraries its renderers use, cite (a leaf) for the
	// citation Style, and the PDF printer's browser lookup, but no store,
	// spreadsheet library or provider; like every leaf it imports no
	// package of the module outside internal/ but leaves, so never the
	// root (which renders a Report with it).
	"render": {"github.com/google/jsonschema-go", "github.com/yuin/goldmark", "golang.org/x/net", "golang.org/x/text"},
}

// backends are the public packages of search backends (Config.Search):
// the root may import them (its default is a corpus), and they import no
// package of the module outside internal/ but leaves and each other.
var backends = []string{"corpus", "mcpsource", "web"}

// heavyModules are what no leaf links: the run store (SQLite), the PDF
// engine (PDFium in wasm), the spreadsheet library and the article
// extractor.
var heavyModules = []string{"modernc.org/sqlite", "github.com/klippa-app/go-pdfium", "github.com/tetratelabs/wazero",
	"github.com/xuri/excelize", "github.com/go-shiori/go-readability"}

// TestLeavesLinkNothingHeavy: no leaf links a heavy module, and leaves
// lets none link one.
func TestLeavesLinkNothingHeavy(t *testing.T) {
	t.Parallel()
	heavy := func(dep string) bool {
		return slices.ContainsFunc(heavyModules, func(m string) bool { return dep == m || strings.HasPrefix(dep, m+"/") })
	}
	for _, rel := range slices.Sorted(maps.Keys(leaves)) {
		for _, m := range leaves[rel] {
			if heavy(m) {
				t.Errorf("leaves (deps_test.go) lets %s link %s", rel, m)
			}
		}
		for _, dep := range goList(t, "-deps", "./"+rel) {
			if heavy(dep) {
				t.Errorf("%s links %s", rel, dep)
			}
		}
	}
}

// configLibraries stay in config/load and cmd/: the library an embedder
// links carries none of them.
var configLibraries = []string{"github.com/spf13/viper", "github.com/spf13/pflag",
	"github.com/go-viper/mapstructure", "github.com/mitchellh/mapstructure"}

// pkgGraph is what go list says of one package: its non-test imports and
// everything it links.
type pkgGraph struct {
	imports, deps []string
}

// TestDependencies holds the module's package graph to its rules (see
// graphViolations).
func TestDependencies(t *testing.T) {
	t.Parallel()
	pkgs := map[string]pkgGraph{} // by path below the module; "." is the root
	for _, line := range goList(t, "-f", `{{.ImportPath}}|{{join .Imports " "}}|{{join .Deps " "}}`, "./...") {
		path, rest, _ := strings.Cut(line, "|")
		imps, deps, _ := strings.Cut(rest, "|")
		rel := "."
		if path != module {
			rel = strings.TrimPrefix(path, module+"/")
		}
		pkgs[rel] = pkgGraph{imports: strings.Fields(imps), deps: strings.Fields(deps)}
	}
	if len(pkgs) < len(reaches) {
		t.Fatalf("go list found %d packages; reaches names %d", len(pkgs), len(reaches))
	}
	for _, v := range graphViolations(pkgs, reaches, leaves) {
		t.Error(v)
	}
}

// graphViolations checks the rules of the package graph: each package
// outside internal/ imports only the internal packages reaches names for
// it (and each one of them, so the list stays true); the root imports no
// package of the module outside internal/ but a leaf or a backend, which
// imports none but leaves and backends (config/ maps the
// settings onto the root, never the other way); nothing in internal/
// imports a package outside it (the root least of all) but a leaf; a
// leaf imports no package of the module outside internal/ and links no
// module outside the standard library but those leaves names for it; and
// no package but config/load and the command links a configuration
// library. It returns one sentence a broken rule, naming the package and
// the import, in a stable order.
func graphViolations(pkgs map[string]pkgGraph, reaches, leaves map[string][]string) []string {
	var out []string
	for _, rel := range slices.Sorted(maps.Keys(pkgs)) {
		p := pkgs[rel]
		if strings.HasPrefix(rel, "internal/") {
			for _, imp := range p.imports {
				if _, leaf := leaves[strings.TrimPrefix(imp, module+"/")]; leaf {
					continue
				}
				if imp == module || strings.HasPrefix(imp, module+"/") && !strings.HasPrefix(imp, module+"/internal/") {
					out = append(out, fmt.Sprintf("%s imports %s: nothing in internal/ imports a package outside it", rel, imp))
				}
			}
		} else {
			allowed, ok := reaches[rel]
			if !ok {
				out = append(out, fmt.Sprintf("%s is not in reaches (deps_test.go): name the internal packages it may import", rel))
			}
			used := map[string]bool{}
			for _, imp := range p.imports {
				name, ok := strings.CutPrefix(imp, module+"/internal/")
				_, leaf := leaves[strings.TrimPrefix(imp, module+"/")]
				backend := slices.Contains(backends, strings.TrimPrefix(imp, module+"/"))
				if rel == "." && !ok && !leaf && !backend && strings.HasPrefix(imp, module+"/") {
					out = append(out, fmt.Sprintf(". imports %s: the root imports no package of the module outside internal/ but a leaf or a backend", imp))
				}
				if slices.Contains(backends, rel) && !ok && !leaf && !backend && (imp == module || strings.HasPrefix(imp, module+"/")) {
					out = append(out, fmt.Sprintf("%s imports %s: a backend imports no package of the module outside internal/ but a leaf or a backend", rel, imp))
				}
				if !ok {
					continue
				}
				used[name] = true
				if !slices.Contains(allowed, name) {
					out = append(out, fmt.Sprintf("%s imports %s, which reaches (deps_test.go) does not allow it", rel, imp))
				}
			}
			for _, name := range allowed {
				if !used[name] {
					out = append(out, fmt.Sprintf("reaches (deps_test.go) lets %s import internal/%s, which it no longer does: strike it", rel, name))
				}
			}
		}
		if mods, leaf := leaves[rel]; leaf {
			out = append(out, leafViolations(rel, p.deps, mods, leaves)...)
		}
		if rel == "config/load" || rel == "cmd/deepresearch" || strings.HasPrefix(rel, "cmd/deepresearch/") {
			continue
		}
		for _, dep := range p.deps {
			for _, lib := range configLibraries {
				if dep == lib || strings.HasPrefix(dep, lib+"/") {
					out = append(out, fmt.Sprintf("%s links %s: configuration libraries stay in config/load and cmd/", rel, dep))
				}
			}
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(reaches)) {
		if _, ok := pkgs[rel]; !ok {
			out = append(out, fmt.Sprintf("reaches (deps_test.go) names %s, which is no package of the module: strike it", rel))
		}
	}
	return out
}

// leafViolations checks what the leaf rel links (deps): of the module,
// only internal/ packages; outside it, the standard library and the
// modules mods.
func leafViolations(rel string, deps, mods []string, leaves map[string][]string) []string {
	var out []string
	for _, dep := range deps {
		switch {
		case dep == module || strings.HasPrefix(dep, module+"/"):
			if _, leaf := leaves[strings.TrimPrefix(dep, module+"/")]; !leaf && !strings.HasPrefix(dep, module+"/internal/") {
				out = append(out, fmt.Sprintf("%s links %s: a leaf (deps_test.go) links no package of the module outside internal/ but leaves", rel, dep))
			}
		case !strings.Contains(strings.Split(dep, "/")[0], "."):
			// the standard library
		case !slices.ContainsFunc(mods, func(m string) bool { return dep == m || strings.HasPrefix(dep, m+"/") }):
			out = append(out, fmt.Sprintf("%s links %s: a leaf (deps_test.go) links only the modules leaves names for it", rel, dep))
		}
	}
	return out
}

// TestDependencyRules: each rule of graphViolations, broken once, is
// told with the package and the import; a graph that keeps them is quiet.
func TestDependencyRules(t *testing.T) {
	in := func(name string) string { return module + "/internal/" + name }
	allow := map[string][]string{".": {"events"}, "httpapi": {"events", "clock"}}
	leafAllow := map[string][]string{"leaf": {"golang.org/x/text"}}
	tests := []struct {
		name string
		pkgs map[string]pkgGraph
		want []string
	}{
		{"kept", map[string]pkgGraph{
			".":               {imports: []string{in("events"), "context"}},
			"httpapi":         {imports: []string{module, in("events"), in("clock")}},
			"internal/events": {imports: []string{in("clock")}},
			"internal/clock":  {},
		}, nil},
		{"a leaf kept", map[string]pkgGraph{
			".": {imports: []string{in("events")}}, "httpapi": {imports: []string{in("events"), in("clock")}},
			"internal/agent": {imports: []string{module + "/leaf"}},
			"leaf":           {deps: []string{in("clock"), "time", "golang.org/x/text/unicode/norm"}},
		}, nil},
		{"a leaf links a heavy module", map[string]pkgGraph{
			".": {imports: []string{in("events")}}, "httpapi": {imports: []string{in("events"), in("clock")}},
			"leaf": {deps: []string{in("clock"), module + "/sqlitestore", "modernc.org/sqlite/lib"}},
		}, []string{
			"leaf links " + module + "/sqlitestore: a leaf (deps_test.go) links no package of the module outside internal/ but leaves",
			"leaf links modernc.org/sqlite/lib: a leaf (deps_test.go) links only the modules leaves names for it",
		}},
		{"a leaf imports the root", map[string]pkgGraph{
			".": {imports: []string{in("events")}}, "httpapi": {imports: []string{in("events"), in("clock")}},
			"leaf": {imports: []string{module}, deps: []string{module, in("clock")}},
		}, []string{
			"leaf links " + module + ": a leaf (deps_test.go) links no package of the module outside internal/ but leaves",
		}},
		{"the root imports config", map[string]pkgGraph{
			".":       {imports: []string{in("events"), module + "/config", module + "/leaf"}},
			"httpapi": {imports: []string{in("events"), in("clock")}},
			"leaf":    {},
			"config":  {imports: []string{module}},
		}, []string{
			". imports " + module + "/config: the root imports no package of the module outside internal/ but a leaf or a backend",
			"config is not in reaches (deps_test.go): name the internal packages it may import",
		}},
		{"a backend imports the root", map[string]pkgGraph{
			".":       {imports: []string{in("events"), module + "/web"}},
			"httpapi": {imports: []string{in("events"), in("clock")}},
			"web":     {imports: []string{module, module + "/leaf"}},
			"leaf":    {},
		}, []string{
			"web is not in reaches (deps_test.go): name the internal packages it may import",
			"web imports " + module + ": a backend imports no package of the module outside internal/ but a leaf or a backend",
		}},
		{"a new reach", map[string]pkgGraph{
			".":       {imports: []string{in("events")}},
			"httpapi": {imports: []string{in("events"), in("clock"), in("verify")}},
		}, []string{"httpapi imports " + in("verify") + ", which reaches (deps_test.go) does not allow it"}},
		{"a reach no longer made", map[string]pkgGraph{
			".":       {imports: []string{in("events")}},
			"httpapi": {imports: []string{in("events")}},
		}, []string{"reaches (deps_test.go) lets httpapi import internal/clock, which it no longer does: strike it"}},
		{"a package without a list", map[string]pkgGraph{
			".": {imports: []string{in("events")}}, "httpapi": {imports: []string{in("events"), in("clock")}},
			"newfront": {},
		}, []string{"newfront is not in reaches (deps_test.go): name the internal packages it may import"}},
		{"a list without a package", map[string]pkgGraph{
			".": {imports: []string{in("events")}},
		}, []string{"reaches (deps_test.go) names httpapi, which is no package of the module: strike it"}},
		{"internal imports the root", map[string]pkgGraph{
			".": {imports: []string{in("events")}}, "httpapi": {imports: []string{in("events"), in("clock")}},
			"internal/agent": {imports: []string{module, module + "/sqlitestore"}},
		}, []string{
			"internal/agent imports " + module + ": nothing in internal/ imports a package outside it",
			"internal/agent imports " + module + "/sqlitestore: nothing in internal/ imports a package outside it",
		}},
		{"the root links viper", map[string]pkgGraph{
			".":       {imports: []string{in("events")}, deps: []string{"github.com/spf13/viper", "github.com/go-viper/mapstructure/v2"}},
			"httpapi": {imports: []string{in("events"), in("clock")}},
		}, []string{
			". links github.com/spf13/viper: configuration libraries stay in config/load and cmd/",
			". links github.com/go-viper/mapstructure/v2: configuration libraries stay in config/load and cmd/",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			allow := maps.Clone(allow)
			if _, ok := tt.pkgs["leaf"]; ok {
				allow["leaf"] = nil // the leaf cases' package
			}
			if got := graphViolations(tt.pkgs, allow, leafAllow); !slices.Equal(got, tt.want) {
				t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// engineImports are the packages of the module that internal/engine (a
// run's research, below the root's façade) imports: internal packages
// and the leaves they share — never the root, cmd, httpapi, mcpserver or
// natsrun. It is today's set, held as reaches holds the public packages'.
var engineImports = []string{"cite", "clock", "domains", "events",
	"internal/agent", "internal/canon", "internal/citeproc", "internal/collapse", "internal/excerpt", "internal/finalreport",
	"internal/journal", "internal/refs", "internal/relevance", "internal/sourcetext", "internal/telemetry", "internal/terms", "internal/usage",
	"search", "source", "worker"}

// TestEngineImports holds internal/engine's imports of the module to
// engineImports, both ways.
func TestEngineImports(t *testing.T) {
	t.Parallel()
	got := map[string]bool{}
	for _, imp := range goList(t, "-f", `{{join .Imports "\n"}}`, "./internal/engine") {
		if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
			got[rel] = true
			if !slices.Contains(engineImports, rel) {
				t.Errorf("internal/engine imports %s, which engineImports (deps_test.go) does not allow", rel)
			}
		}
	}
	for _, rel := range engineImports {
		if !got[rel] {
			t.Errorf("engineImports (deps_test.go) lets internal/engine import %s, which it no longer does: strike it", rel)
		}
	}
}
