//go:build !unix

package corpus

// openFlags are added to O_RDONLY when Sync opens a file; this system has
// none that help (see open_unix.go).
const openFlags = 0
