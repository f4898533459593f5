package deepresearch_test

import (
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

// TestDependencies holds the package graph to its rules: the library an
// embedder links carries no configuration library (viper, pflag and
// mapstructure stay in config/load and cmd/); the front ends (the command,
// the HTTP API, the MCP server) reach the citation core, verification and
// run storage only through the root package; and nothing in internal/
// imports the root.
func TestDependencies(t *testing.T) {
	t.Parallel()
	const module = "github.com/deepresearch/deepresearch"
	for _, dep := range goList(t, "-deps", ".") {
		for _, banned := range []string{"spf13/viper", "spf13/pflag", "mapstructure"} {
			if strings.Contains(dep, banned) {
				t.Errorf("the root package links %s", dep)
			}
		}
	}
	internal := func(name string) string { return module + "/internal/" + name }
	rules := []struct {
		pkgs      string   // a go list pattern
		forbidden []string // import paths
	}{
		{"./cmd/deepresearch", []string{internal("verify"), internal("collapse"), internal("citeproc"), internal("server"), internal("store")}},
		{"./mcpserver", []string{internal("verify"), internal("collapse"), internal("citeproc"), internal("server"), internal("store")}},
		{"./httpapi", []string{internal("verify"), internal("collapse"), internal("citeproc"), internal("store")}},
		{"./internal/...", []string{module, module + "/httpapi", module + "/mcpserver", module + "/sqlitestore", module + "/config/load"}},
	}
	var patterns []string
	for _, rule := range rules {
		patterns = append(patterns, rule.pkgs)
	}
	imports := map[string][]string{} // package → what it imports, one go list for all
	for _, line := range goList(t, append([]string{"-f", `{{.ImportPath}} {{join .Imports " "}}`}, patterns...)...) {
		pkg, imps, _ := strings.Cut(line, " ")
		imports[pkg] = strings.Fields(imps)
	}
	for _, rule := range rules {
		prefix := module + "/" + strings.TrimSuffix(strings.TrimPrefix(rule.pkgs, "./"), "...")
		for pkg, imps := range imports {
			if pkg != prefix && !(strings.HasSuffix(rule.pkgs, "...") && strings.HasPrefix(pkg, prefix)) {
				continue
			}
			for _, imp := range imps {
				if slices.Contains(rule.forbidden, imp) {
					t.Errorf("%s imports %s", pkg, imp)
				}
			}
		}
	}
}
