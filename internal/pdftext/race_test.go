//go:build race

package pdftext

// raceEnabled: the race detector's shadow memory counts in RLIMIT_DATA.
const raceEnabled = true
