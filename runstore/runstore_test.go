package runstore_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/runstore"
)

// TestStatus: the live statuses are those a run can move on from, the
// waiting ones those that wait for a person; every other is final.
func TestStatus(t *testing.T) {
	for _, tt := range []struct {
		s              runstore.Status
		ended, waiting bool
	}{
		{runstore.Queued, false, false}, {runstore.Running, false, false},
		{runstore.NeedsInput, false, true}, {runstore.AwaitingPlan, false, true},
		{runstore.Finished, true, false}, {runstore.Failed, true, false},
		{runstore.Canceled, true, false}, {runstore.Interrupted, true, false},
	} {
		if tt.s.Ended() != tt.ended || tt.s.Waiting() != tt.waiting {
			t.Errorf("%s: Ended %v Waiting %v; want %v %v", tt.s, tt.s.Ended(), tt.s.Waiting(), tt.ended, tt.waiting)
		}
	}
}

// TestRunWireFormat: a stored run's JSON is what stores keep and the HTTP
// API serves; its members' names do not change.
func TestRunWireFormat(t *testing.T) {
	r := runstore.Run{ID: "r1", Question: "q?", Status: runstore.Finished, Origin: runstore.OriginCLI,
		Created: time.Date(2026, 11, 29, 5, 0, 0, 0, time.UTC), Events: 7}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"id": "r1", "question": "q?", "status": "finished", "origin": "cli", "created": "2026-11-29T05:00:00Z", "events": 7.0} {
		if m[k] != want {
			t.Errorf("%s = %v; want %v (JSON %s)", k, m[k], want, b)
		}
	}
	if _, ok := m["finished"]; ok {
		t.Errorf("a zero finish time is written: %s", b)
	}
}
