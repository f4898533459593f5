//go:build unix

package sqlitestore

import (
	"errors"
	"syscall"
)

// processAlive reports whether the process pid exists (a zombie, not yet
// reaped by its parent, still does). Signal 0 checks without signalling.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
