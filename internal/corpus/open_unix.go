//go:build unix

package corpus

import "syscall"

// openFlags are added to O_RDONLY when Sync opens a file: do not wait for
// a writer if the file became a pipe since it was listed, and do not
// follow a link that replaced it.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW
