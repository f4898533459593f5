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
// mapstructure stay in config/load and cmd/).
func TestDependencies(t *testing.T) {
	const module = "github.com/deepresearch/deepresearch"
	for _, dep := range goList(t, "-deps", ".") {
		for _, banned := range []string{"spf13/viper", "spf13/pflag", "mapstructure"} {
			if strings.Contains(dep, banned) {
				t.Errorf("the root package links %s", dep)
			}
		}
	}
}
