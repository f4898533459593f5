//go:build race

package eval_test

// raceEnabled: the race detector slows the evaluation twentyfold and finds
// nothing in it (it runs on one goroutine); TestRetrievalTargets skips.
const raceEnabled = true
