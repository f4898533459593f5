package memstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/deepresearch/deepresearch/runstore"
)

// PutRecheck stores the re-check of ended run rc.RunID, replacing its
// last one. rc.Result must be JSON; a run the store does not hold is
// runstore.ErrNotFound, a live one refused.
func (s *Store) PutRecheck(_ context.Context, rc runstore.Recheck) error {
	if !json.Valid(rc.Result) {
		return storeError("put the re-check of", rc.RunID, errors.New("the re-check is not valid JSON"))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.runs[rc.RunID]
	switch {
	case !ok:
		return storeError("put the re-check of", rc.RunID, runstore.ErrNotFound)
	case !r.run.Status.Ended():
		return storeError("put the re-check of", rc.RunID, fmt.Errorf("run is %s; only an ended run is re-checked", r.run.Status))
	}
	rc.Checked = rc.Checked.UTC()
	rc.Result = slices.Clone(rc.Result)
	r.recheck = &rc
	return nil
}

// LastRecheck returns run id's last re-check, or
// runstore.ErrNotFound when it has none.
func (s *Store) LastRecheck(_ context.Context, id string) (runstore.Recheck, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.runs[id]
	if !ok || r.recheck == nil {
		return runstore.Recheck{}, storeError("get the re-check of", id, runstore.ErrNotFound)
	}
	rc := *r.recheck
	rc.Result = slices.Clone(rc.Result)
	return rc, nil
}
