package mcpsource

// PID is the process ID of s's child process (0: none started).
func PID(s *Source) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}
