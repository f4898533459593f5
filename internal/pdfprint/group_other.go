//go:build !unix

package pdfprint

import "os/exec"

// processGroup leaves the browser in the caller's process group: killing
// it on cancel is exec.CommandContext's default.
func processGroup(*exec.Cmd) {}
