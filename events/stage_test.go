package events

import (
	"encoding/json"
	"testing"
)

// TestStageWords: each stage's role and journal scope are the words
// journals, manifests and prices have always used — a journal written
// before Stage derived them must still be answered from — and a stage
// this version does not know reads and writes as itself.
func TestStageWords(t *testing.T) {
	tests := []struct {
		stage       Stage
		word        string
		role, scope string
	}{
		{StageIndex, "index", "", ""},
		{StagePlan, "plan", "planner", "planner"},
		{StageResearch, "research", "researcher", "researcher"},
		{StageMerge, "merge", "", ""},
		{StageAssess, "assess", "planner", "planner/assess"},
		{StageReport, "report", "writer", "writer"},
		{StageVerify, "verify", "writer", "verify"},
	}
	for _, tt := range tests {
		if tt.stage.String() != tt.word || tt.stage.Role() != tt.role || tt.stage.Scope() != tt.scope {
			t.Errorf("%s: word %q, role %q, scope %q; want %q, %q, %q", tt.word, tt.stage.String(), tt.stage.Role(), tt.stage.Scope(), tt.word, tt.role, tt.scope)
		}
	}
	var e ErrorData
	if err := json.Unmarshal([]byte(`{"error":"x","stage":"polish"}`), &e); err != nil || e.Stage != "polish" {
		t.Errorf("an unknown stage: %+v, %v", e, err)
	}
	b, err := json.Marshal(RunFinishedData{Timings: map[Stage]int64{StageVerify: 2, StagePlan: 1}})
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Timings map[string]int64 `json:"timings"`
	}
	if err := json.Unmarshal(b, &back); err != nil || back.Timings["plan"] != 1 || back.Timings["verify"] != 2 {
		t.Errorf("timings by stage read back as %s", b)
	}
}
