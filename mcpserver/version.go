package mcpserver

import "runtime/debug"

// buildVersion is the version the server reports when Options.Version is
// empty: the module's version when the binary was built from one (`go
// install …@v1.2.3`), else the commit it was built from ("a1b2c3d4e5f6",
// "-dirty" when the tree had changes), else "dev".
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(bi, ok)
}

func versionOf(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "dev"
	}
	return rev[:min(len(rev), 12)] + dirty
}
