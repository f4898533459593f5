package deepresearch_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
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
		forbidden []string // import paths (or, ending in /, their prefixes)
	}{
		{"./cmd/deepresearch", []string{internal("verify"), internal("collapse"), internal("citeproc"), internal("server"), internal("store")}},
		{"./mcpserver", []string{internal("verify"), internal("collapse"), internal("citeproc"), internal("server"), internal("store")}},
		{"./httpapi", []string{internal("verify"), internal("collapse"), internal("citeproc"), internal("store")}},
		{"./internal/...", []string{module, module + "/httpapi", module + "/mcpserver", module + "/sqlitestore", module + "/config/load"}},
	}
	for _, rule := range rules {
		for _, line := range goList(t, "-f", `{{.ImportPath}} {{join .Imports " "}}`, rule.pkgs) {
			pkg, imports, _ := strings.Cut(line, " ")
			for _, imp := range strings.Fields(imports) {
				for _, f := range rule.forbidden {
					if imp == f {
						t.Errorf("%s imports %s", pkg, imp)
					}
				}
			}
		}
	}
}
