package httpapi

import (
	"net/http"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/events"
)

// TestEstimate: POST /v1/research with "estimate": true answers 200 with
// the estimate (the plan, the expected and maximum spend) and starts no
// run; a bad request is refused as any other.
func TestEstimate(t *testing.T) {
	e := newEnv(t, envOpts{})
	res := e.do("POST", "/v1/research", `{"question":"How are submarine cables repaired?","estimate":true,"max_cycles":1}`)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/research estimate: %s", res.Status)
	}
	var est deepresearch.Estimate
	readJSON(t, res, &est)
	if len(est.Plan) == 0 || est.MaxCycles != 1 || est.Expected.Calls == 0 || est.Maximum.Calls < est.Expected.Calls ||
		est.Maximum.Total() < est.Expected.Total() {
		t.Errorf("estimate %+v", est)
	}
	var sum events.Usage
	for _, u := range est.Maximum.ByRole {
		sum = sum.Add(u)
	}
	if sum != est.Maximum.Usage {
		t.Errorf("the maximum's roles add up to %+v, not %+v", sum, est.Maximum.Usage)
	}
	runs, err := e.store.List(t.Context(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 0 {
		t.Errorf("an estimate started %d runs", len(runs))
	}
	checkError(t, e.do("POST", "/v1/research", `{"question":"q","estimate":true,"max_tasks":99}`), http.StatusBadRequest, "invalid_request_error", "max_tasks")
}
