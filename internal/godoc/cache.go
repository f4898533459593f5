package godoc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// staleTemp is the age past which a temporary folder of Cached is taken
// for one a killed process left behind, and removed.
const staleTemp = time.Hour

// layout names the layout of what Write writes; it changes whenever the
// output of Write changes for the same distribution, so that a cached
// folder written by an older program is not reused (see Cached).
const layout = "1"

// Cached returns the folder holding the documentation of the Go
// distribution at goroot (what Write writes), under cacheDir:
// godoc-<Go version>-<hash>, where the hash covers goroot's absolute path,
// the platform and the output format. The first call writes it; later
// calls, from this process or any other, find it and write nothing.
//
// The folder appears whole or not at all: Write fills a temporary folder
// beside it, which is then renamed into place. Processes that start at
// once each write their own and one rename wins; the others find the
// folder there, drop their copy and return it. A folder once in place is
// never changed, so a corpus index of it stays valid. A process killed
// while writing leaves its temporary folder (".godoc-…-tmp…") behind; the
// next call that writes removes those over an hour old.
//
// Errors name the folder: a cache folder that cannot be created or
// written, a distribution that cannot be read.
func Cached(ctx context.Context, goroot, cacheDir string) (string, error) {
	abs, err := filepath.Abs(goroot)
	if err != nil {
		return "", fmt.Errorf("godoc: Go distribution %s: %w", goroot, err)
	}
	name := cachedName(abs)
	dir := filepath.Join(cacheDir, name)
	if isDir(dir) {
		return dir, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("godoc: cache folder: %w", err)
	}
	removeStale(cacheDir, "."+name+"-tmp")
	tmp, err := os.MkdirTemp(cacheDir, "."+name+"-tmp")
	if err != nil {
		return "", fmt.Errorf("godoc: cache folder: %w", err)
	}
	defer os.RemoveAll(tmp) // gone once renamed; else this process's copy
	if _, err := Write(ctx, abs, tmp); err != nil {
		return "", err // it names the file it could not read or write
	}
	if err := os.Rename(tmp, dir); err != nil {
		if isDir(dir) {
			return dir, nil // another process was first
		}
		return "", fmt.Errorf("godoc: cache folder: %w", err)
	}
	return dir, nil
}

// cachedName is the name of the cached folder of the distribution at the
// absolute path goroot.
func cachedName(goroot string) string {
	sum := sha256.Sum256([]byte(goroot + "\x00" + runtime.GOOS + "/" + runtime.GOARCH + "\x00" + layout))
	return "godoc-" + goVersion(goroot) + "-" + hex.EncodeToString(sum[:6])
}

// removeStale removes the folders in cacheDir whose names start with
// prefix and that have not changed for staleTemp. Failures are ignored:
// what is left is only disk space.
func removeStale(cacheDir, prefix string) {
	entries, err := os.ReadDir(cacheDir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleTemp {
			os.RemoveAll(filepath.Join(cacheDir, e.Name()))
		}
	}
}

// goVersion is the distribution's version as its VERSION file gives it
// ("go1.26.8"), made safe for a file name; "devel" without one.
func goVersion(goroot string) string {
	b, err := os.ReadFile(filepath.Join(goroot, "VERSION"))
	if err != nil {
		return "devel"
	}
	line, _, _ := strings.Cut(string(b), "\n")
	v := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, strings.TrimSpace(line))
	if len(v) > 40 {
		v = v[:40]
	}
	if v == "" {
		return "devel"
	}
	return v
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
