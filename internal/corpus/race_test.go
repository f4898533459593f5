//go:build race

package corpus

// raceEnabled: the race detector's shadow memory counts in RLIMIT_DATA.
const raceEnabled = true
