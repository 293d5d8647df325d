package shared

import (
	"io"
	"testing"
	"time"

	"github.com/aistatus/aistatus/serve/shared/redistest"
	"github.com/rs/zerolog"
)

// fakeClock is a clock that stands still.
type fakeClock struct{ t time.Time }

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time { return c.t }

// lyingRedis is a Redis that answers every command but the handshake with
// answer, and the shared state of a replica using it, on a clock that does
// not move.
func lyingRedis(t *testing.T, answer redistest.Answer) (*Redis, *fakeClock, *redistest.FailLogs) {
	t.Helper()
	rdb, err := NewRedisClient(redistest.Start(t, answer).URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	clock, logs := newFakeClock(), &redistest.FailLogs{}
	shared := NewRedis(rdb, zerolog.New(io.Discard).Hook(logs), clock.Now)
	if !shared.Status().OK {
		t.Fatal("the fake Redis does not answer PING")
	}
	return shared, clock, logs
}
