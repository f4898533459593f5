//go:build unix

package pdfprint

import (
	"os/exec"
	"syscall"
)

// processGroup starts the browser in a process group of its own and makes
// cancelling kill the whole group: Chromium forks renderer and utility
// processes that would outlive a killed parent.
func processGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
