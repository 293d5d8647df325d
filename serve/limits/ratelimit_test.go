package limits

import (
	"net/netip"
	"sync"
	"testing"
	"time"
)

// rlFakeClock is a manually advanced clock. It is safe for concurrent use so
// it can also drive the -race test.
type rlFakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newRLFakeClock() *rlFakeClock {
	return &rlFakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *rlFakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *rlFakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// rlAddr4 returns a distinct IPv4 address for each i.
func rlAddr4(i int) netip.Addr {
	return netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
}

func TestRateLimiterBurstThenDeny(t *testing.T) {
	t.Parallel()
	clock := newRLFakeClock()
	l := NewRateLimiter(30, time.Minute, 1000, clock.Now)
	key := netip.MustParseAddr("192.0.2.1")

	for i := range 30 {
		d := l.Allow(key)
		want := Decision{
			Allowed:   true,
			Limit:     30,
			Window:    time.Minute,
			Remaining: 29 - i,
			Reset:     time.Duration(i+1) * 2 * time.Second,
		}
		if d != want {
			t.Fatalf("request %d: got %+v, want %+v", i+1, d, want)
		}
	}
	want := Decision{
		Allowed:    false,
		Limit:      30,
		Window:     time.Minute,
		Remaining:  0,
		Reset:      time.Minute,
		RetryAfter: 2 * time.Second,
	}
	for i := range 3 {
		// Denied requests must not push the allowance further away.
		if d := l.Allow(key); d != want {
			t.Fatalf("denied request %d: got %+v, want %+v", i+1, d, want)
		}
	}
}

func TestRateLimiterRestoresGradually(t *testing.T) {
	t.Parallel()
	clock := newRLFakeClock()
	l := NewRateLimiter(30, time.Minute, 1000, clock.Now)
	key := netip.MustParseAddr("192.0.2.1")
	for range 30 {
		l.Allow(key)
	}

	steps := []struct {
		advance     time.Duration
		wantAllowed bool
		wantRetry   time.Duration
	}{
		{advance: time.Second, wantAllowed: false, wantRetry: time.Second},
		{advance: time.Second - time.Nanosecond, wantAllowed: false, wantRetry: time.Nanosecond},
		{advance: time.Nanosecond, wantAllowed: true},
		{advance: 0, wantAllowed: false, wantRetry: 2 * time.Second},
		{advance: 2 * time.Second, wantAllowed: true},
		{advance: 0, wantAllowed: false, wantRetry: 2 * time.Second},
	}
	for i, s := range steps {
		clock.Advance(s.advance)
		d := l.Allow(key)
		if d.Allowed != s.wantAllowed || d.RetryAfter != s.wantRetry {
			t.Fatalf("step %d (+%v): got allowed=%v retry=%v, want allowed=%v retry=%v",
				i, s.advance, d.Allowed, d.RetryAfter, s.wantAllowed, s.wantRetry)
		}
		if d.Allowed && d.Remaining != 0 {
			t.Fatalf("step %d: remaining = %d after a single restored request, want 0", i, d.Remaining)
		}
	}

	// A full window of silence restores the whole quota.
	clock.Advance(time.Minute)
	if d := l.Allow(key); !d.Allowed || d.Remaining != 29 || d.Reset != 2*time.Second {
		t.Fatalf("after a full window: got %+v, want allowed with 29 remaining", d)
	}
}

func TestRateLimiterPartialRestore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		wait          time.Duration
		wantRemaining int // after one more request
	}{
		{"no wait", 0, 19},
		{"one interval", 2 * time.Second, 20},
		{"just under two intervals", 4*time.Second - 1, 20},
		{"ten intervals", 20 * time.Second, 29},
		{"full window", time.Minute, 29},
		{"long idle", time.Hour, 29},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newRLFakeClock()
			l := NewRateLimiter(30, time.Minute, 1000, clock.Now)
			key := netip.MustParseAddr("192.0.2.1")
			for range 10 {
				l.Allow(key)
			}
			clock.Advance(tt.wait)
			if d := l.Allow(key); !d.Allowed || d.Remaining != tt.wantRemaining {
				t.Fatalf("got %+v, want allowed with %d remaining", d, tt.wantRemaining)
			}
		})
	}
}

func TestRateLimiterInexactInterval(t *testing.T) {
	t.Parallel()
	// 60s/7 is not a whole number of nanoseconds: exactly 7 must still fit.
	clock := newRLFakeClock()
	l := NewRateLimiter(7, time.Minute, 10, clock.Now)
	key := netip.MustParseAddr("192.0.2.1")
	for i := range 7 {
		if d := l.Allow(key); !d.Allowed || d.Remaining != 6-i {
			t.Fatalf("request %d: got %+v", i+1, d)
		}
	}
	if d := l.Allow(key); d.Allowed {
		t.Fatalf("request 8: got %+v, want denied", d)
	}
}

func TestRateLimiterKeysIndependent(t *testing.T) {
	t.Parallel()
	clock := newRLFakeClock()
	l := NewRateLimiter(30, time.Minute, 1000, clock.Now)
	a := netip.MustParseAddr("192.0.2.1")
	b := netip.MustParseAddr("192.0.2.2")
	for range 30 {
		l.Allow(a)
	}
	if d := l.Allow(a); d.Allowed {
		t.Fatalf("a after 30: got %+v, want denied", d)
	}
	if d := l.Allow(b); !d.Allowed || d.Remaining != 29 {
		t.Fatalf("b: got %+v, want a fresh allowance", d)
	}
}

func TestRateLimitIPv6Prefix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		first      string // exhausts its allowance
		second     string
		wantShared bool
	}{
		{"same /64", "2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff", true},
		{"same /64 with zone", "fe80::1%eth0", "fe80::2%eth1", true},
		{"different /64", "2001:db8:1:2::1", "2001:db8:1:3::1", false},
		{"same /48 different /64", "2001:db8:1::1", "2001:db8:1:ffff::1", false},
		{"IPv4 neighbours", "192.0.2.1", "192.0.2.2", false},
		{"IPv4 and its mapped form", "192.0.2.1", "::ffff:192.0.2.1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newRLFakeClock()
			l := NewRateLimiter(30, time.Minute, 1000, clock.Now)
			for range 30 {
				l.Allow(LimitKey(netip.MustParseAddr(tt.first)))
			}
			d := l.Allow(LimitKey(netip.MustParseAddr(tt.second)))
			if shared := !d.Allowed; shared != tt.wantShared {
				t.Fatalf("shared allowance = %v, want %v (%+v)", shared, tt.wantShared, d)
			}
		})
	}
}

func TestLimitKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   netip.Addr
		want netip.Addr
	}{
		{netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.1")},
		{netip.MustParseAddr("::ffff:192.0.2.1"), netip.MustParseAddr("192.0.2.1")},
		{netip.MustParseAddr("2001:db8:1:2:3:4:5:6"), netip.MustParseAddr("2001:db8:1:2::")},
		{netip.MustParseAddr("fe80::1%eth0"), netip.MustParseAddr("fe80::")},
		{netip.MustParseAddr("::1"), netip.MustParseAddr("::")},
		{netip.Addr{}, netip.Addr{}},
	}
	for _, tt := range tests {
		if got := LimitKey(tt.in); got != tt.want {
			t.Errorf("LimitKey(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestRateLimiterMaxClients(t *testing.T) {
	t.Parallel()
	for _, maxClients := range []int{1, 7, 64, 100, 1000, 5000} {
		clock := newRLFakeClock()
		l := NewRateLimiter(30, time.Minute, maxClients, clock.Now)
		for i := range 100_000 {
			if d := l.Allow(rlAddr4(i)); !d.Allowed {
				t.Fatalf("maxClients=%d: first request of a new key denied: %+v", maxClients, d)
			}
			if i%1000 == 0 {
				clock.Advance(time.Second) // a mix of idle and active keys
			}
			// Len locks every shard; checking it on every insert would
			// make this test slow under -race for no extra coverage.
			if i%97 == 0 {
				if n := l.Len(); n > maxClients {
					t.Fatalf("maxClients=%d: Len() = %d after %d keys", maxClients, n, i+1)
				}
			}
		}
		if n := l.Len(); n > maxClients || n < maxClients/2 {
			t.Fatalf("maxClients=%d: Len() = %d at the end, want about maxClients", maxClients, n)
		}
	}
}

func TestRateLimiterDropsIdleBeforeActive(t *testing.T) {
	t.Parallel()
	clock := newRLFakeClock()
	// 64 shards of 16 keys. The 8 active keys can never fill a shard on
	// their own, so as long as idle keys are swept first none of them is
	// ever evicted, whichever shards they hash to.
	l := NewRateLimiter(30, time.Minute, 64*16, clock.Now)
	active := make([]netip.Addr, 8)
	for i := range active {
		active[i] = netip.AddrFrom4([4]byte{192, 0, 2, byte(i)})
		for range 30 {
			l.Allow(active[i])
		}
	}
	// Each idle key makes one request and is idle again once the clock
	// moves on, so at most one non-active key is ever not idle.
	for i := range 20_000 {
		clock.Advance(2 * time.Second)
		l.Allow(rlAddr4(i))
		for _, a := range active {
			// Two seconds restored exactly one request. Had the key been
			// evicted, it would have 29 left.
			if d := l.Allow(a); !d.Allowed || d.Remaining != 0 {
				t.Fatalf("after %d idle keys: active key %v lost its state: %+v", i+1, a, d)
			}
		}
		if n := l.Len(); n > 64*16 {
			t.Fatalf("Len() = %d", n)
		}
	}
}

func TestRateLimiterConcurrent(t *testing.T) {
	t.Parallel()
	clock := newRLFakeClock()
	const limit = 30
	l := NewRateLimiter(limit, time.Minute, 500, clock.Now)
	shared := netip.MustParseAddr("192.0.2.1")

	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		allowed int
	)
	for g := range 16 {
		wg.Go(func() {
			n := 0
			for i := range 2000 {
				if l.Allow(shared).Allowed {
					n++
				}
				l.Allow(rlAddr4(g*2000 + i)) // churn through eviction
				if i%500 == 0 {
					l.Len()
				}
			}
			mu.Lock()
			allowed += n
			mu.Unlock()
		})
	}
	wg.Wait()
	// The clock never moved: the shared key must have been allowed exactly
	// limit times however the requests interleaved, unless churn evicted it
	// (at most a fresh allowance per eviction).
	if allowed < limit {
		t.Fatalf("shared key allowed %d times, want at least %d", allowed, limit)
	}
	if n := l.Len(); n > 500 {
		t.Fatalf("Len() = %d, want <= 500", n)
	}
}

func TestRateLimiterConcurrentExact(t *testing.T) {
	t.Parallel()
	clock := newRLFakeClock()
	l := NewRateLimiter(100, time.Minute, 1000, clock.Now)
	key := netip.MustParseAddr("192.0.2.1")
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		allowed int
	)
	for range 16 {
		wg.Go(func() {
			n := 0
			for range 100 {
				if l.Allow(key).Allowed {
					n++
				}
			}
			mu.Lock()
			allowed += n
			mu.Unlock()
		})
	}
	wg.Wait()
	if allowed != 100 {
		t.Fatalf("allowed %d of 1600 concurrent requests, want exactly 100", allowed)
	}
}

func TestNewRateLimiterPanicsOnBadConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		limit      int
		window     time.Duration
		maxClients int
	}{
		{"zero limit", 0, time.Minute, 10},
		{"zero clients", 30, time.Minute, 0},
		{"zero window", 30, 0, 10},
		{"window shorter than limit", 30, 29 * time.Nanosecond, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			NewRateLimiter(tt.limit, tt.window, tt.maxClients, nil)
		})
	}
}
