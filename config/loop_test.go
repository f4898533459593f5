package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestValidateLoop(t *testing.T) {
	s := Defaults()
	s.Research.MaxCycles, s.Research.MaxRunAgents, s.Research.MaxRunTime = 0, -1, -time.Second
	err := s.Validate()
	want := []string{
		"config: research.max_cycles = 0: must be at least 1",
		"config: research.max_run_agents = -1: must be at least 0",
		"config: research.max_run_time = -1s: must be at least 0",
	}
	if err == nil || !slices.Equal(strings.Split(err.Error(), "\n"), want) {
		t.Errorf("err:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("errors.Is(err, ErrInvalid) = false")
	}
}
