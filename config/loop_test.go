package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// The research loop's keys, in TestEveryKeyFromEverySource's samples.
func init() {
	samples["research.max_cycles"] = [3]sample{{yaml: "1", want: 1}, {yaml: "5", want: 5}, {yaml: "2", want: 2}}
	samples["research.max_run_agents"] = [3]sample{{yaml: "8", want: 8}, {yaml: "12", want: 12}}
	samples["research.max_run_time"] = [3]sample{{yaml: "5m", want: 5 * time.Minute}, {yaml: "90s", want: 90 * time.Second}}
}

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
