package verify

import (
	"testing"

	"go.uber.org/goleak"
)

// The package starts no goroutines; the tests' httptest servers and HTTP
// clients must not leave any behind either.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
