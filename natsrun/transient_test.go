package natsrun

import (
	"context"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestTransient: what a publication retries, and what it does not.
func TestTransient(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{context.DeadlineExceeded, true},
		{fmt.Errorf("publish: %w", nats.ErrNoResponders), true},
		{jetstream.ErrNoStreamResponse, true},
		{nats.ErrConnectionReconnecting, true},
		{&jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}, true},
		{&jetstream.APIError{Code: 400, ErrorCode: 10054, Description: "maximum payload exceeded"}, false},
		{&jetstream.APIError{Code: 503, ErrorCode: 10076, Description: "JetStream not enabled"}, false},
		{&jetstream.APIError{Code: 503, ErrorCode: 10023, Description: "insufficient resources"}, false},
		{nats.ErrMaxPayload, false},
		{nats.ErrBadSubject, false},
	} {
		if got := transient(tc.err); got != tc.want {
			t.Errorf("transient(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
