package deepresearchtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/deepresearch/deepresearch"
)

// PutRecheck stores the re-check of ended run rc.RunID, replacing its
// last one. rc.Result must be JSON; a run the store does not hold is
// deepresearch.ErrRunNotFound, a live one refused.
func (s *Store) PutRecheck(_ context.Context, rc deepresearch.StoredRecheck) error {
	if !json.Valid(rc.Result) {
		return storeError("put the re-check of", rc.RunID, errors.New("the re-check is not valid JSON"))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.runs[rc.RunID]
	switch {
	case !ok:
		return storeError("put the re-check of", rc.RunID, deepresearch.ErrRunNotFound)
	case !r.run.Status.Ended():
		return storeError("put the re-check of", rc.RunID, fmt.Errorf("run is %s; only an ended run is re-checked", r.run.Status))
	}
	rc.Checked = rc.Checked.UTC()
	rc.Result = slices.Clone(rc.Result)
	r.recheck = &rc
	return nil
}

// LastRecheck returns run id's last re-check, or
// deepresearch.ErrRunNotFound when it has none.
func (s *Store) LastRecheck(_ context.Context, id string) (deepresearch.StoredRecheck, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.runs[id]
	if !ok || r.recheck == nil {
		return deepresearch.StoredRecheck{}, storeError("get the re-check of", id, deepresearch.ErrRunNotFound)
	}
	rc := *r.recheck
	rc.Result = slices.Clone(rc.Result)
	return rc, nil
}
