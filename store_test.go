package deepresearch_test

import (
	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/internal/storetest"
)

// The conformance suite's Store (internal/storetest) is deepresearch.Store
// method for method: each is assignable to the other, so a store that
// passes the suite is a Store, and a Store is what the suite tests.
var (
	_ storetest.Store    = deepresearch.Store(nil)
	_ deepresearch.Store = storetest.Store(nil)
)
