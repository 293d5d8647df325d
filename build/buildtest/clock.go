package buildtest

import (
	"sync"
	"time"
)

// Clock is a settable clock for builds. It is locked: a fake world's
// server and a thin server read it from their own goroutines while the
// test moves it.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock is a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Set puts the clock at t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}
