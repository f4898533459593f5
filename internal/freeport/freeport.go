// Package freeport finds a TCP port on the loopback interface that no one
// listens on, for tests that start servers whose ports must be known
// before they start (a NATS cluster's routes name each other's ports).
package freeport

import (
	"math/rand/v2"
	"net"
	"strconv"
	"testing"
)

// Low and High bound the ports Port picks: below the range Linux gives
// outgoing connections (32768 and up), so that a port found free is not
// taken a moment later by a connection the test itself makes.
const (
	Low  = 20000
	High = 32000
)

// Port returns a port from Low to High that is free on 127.0.0.1 now,
// failing tb when a hundred tries find none.
func Port(tb testing.TB) int {
	tb.Helper()
	for range 100 {
		p := Low + rand.IntN(High-Low)
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue // taken
		}
		l.Close()
		return p
	}
	tb.Fatalf("no free port from %d to %d on the loopback interface", Low, High)
	return 0
}
