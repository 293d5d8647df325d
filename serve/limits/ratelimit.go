package limits

import (
	"hash/maphash"
	"net/netip"
	"sync"
	"time"
)

// DefaultMaxClients is how many clients a rate limiter remembers unless told
// otherwise, which bounds its memory (BenchmarkRateLimiterMemory).
const DefaultMaxClients = 100_000

// rlMaxShards is the number of independently locked shards. Concurrent
// requests from different clients almost never wait on the same mutex.
const rlMaxShards = 64

// RateLimiter is a per-client GCRA (generic cell rate algorithm) limiter:
// Limit requests per Window per key, with bursts of up to Limit.
//
// Memory is bounded: at most MaxClients keys are tracked. When room is
// needed, keys whose allowance is fully restored are dropped first; if that
// is not enough, arbitrary tracked keys are evicted. An evicted client gets a
// fresh allowance, which is a bounded leak in enforcement rather than
// unbounded memory growth under a flood of distinct addresses.
//
// Keys are spread over up to 64 shards by a seeded hash, each with its own
// mutex. Idle keys are swept lazily when a shard is full, so there is no
// background goroutine to stop. The clock is injected for tests.
//
// A RateLimiter is safe for concurrent use.
type RateLimiter struct {
	limit     int
	window    time.Duration
	interval  time.Duration // T = window/limit: the cost of one request
	burst     time.Duration // limit*T: the window, rounded down to a multiple of T
	tolerance time.Duration // burst - T: how far TAT may run ahead of now
	now       func() time.Time
	epoch     time.Time // TATs are stored as offsets from here
	seed      maphash.Seed
	shards    []rlShard
}

// rlShard holds the theoretical arrival times (TAT) of a subset of keys.
type rlShard struct {
	mu  sync.Mutex
	tat map[netip.Addr]time.Duration // offset from RateLimiter.epoch
	cap int                          // maximum len(tat)
	// dropped counts the keys deleted since tat was last rebuilt.
	dropped int
}

// Decision is the outcome for one request.
type Decision struct {
	Allowed    bool
	Limit      int           // the policy's quota (e.g. 30)
	Window     time.Duration // the policy's window (e.g. 60s)
	Remaining  int           // requests still allowed right now, after this one (0 when denied)
	Reset      time.Duration // time until the full quota is available again (rounded up to whole seconds by the caller)
	RetryAfter time.Duration // when denied: time until one request is allowed again; 0 when allowed
}

// NewRateLimiter returns a limiter allowing limit requests per window per
// key, tracking at most maxClients keys. now is the clock; nil means
// time.Now. It panics if limit or maxClients is not positive or if window is
// too short to give each request a non-zero share of it, since those are
// programming errors in the server's configuration.
func NewRateLimiter(limit int, window time.Duration, maxClients int, now func() time.Time) *RateLimiter {
	if limit <= 0 || maxClients <= 0 {
		panic("serve: NewRateLimiter: limit and maxClients must be positive")
	}
	interval := window / time.Duration(limit)
	if interval <= 0 {
		panic("serve: NewRateLimiter: window too short for limit")
	}
	if now == nil {
		now = time.Now
	}
	// With fewer clients than shards, use fewer shards: every shard must be
	// able to hold at least one key, or its clients would never be limited.
	n := min(rlMaxShards, maxClients)
	l := &RateLimiter{
		limit:    limit,
		window:   window,
		interval: interval,
		// Measured in whole intervals so that exactly limit requests fit
		// in a burst even when window/limit is not exact.
		burst:     interval * time.Duration(limit),
		tolerance: interval * time.Duration(limit-1),
		now:       now,
		epoch:     now(),
		seed:      maphash.MakeSeed(),
		shards:    make([]rlShard, n),
	}
	for i := range l.shards {
		// Split maxClients exactly so the shard caps sum to maxClients.
		c := maxClients / n
		if i < maxClients%n {
			c++
		}
		l.shards[i] = rlShard{tat: make(map[netip.Addr]time.Duration), cap: c}
	}
	return l
}

// Allow records a request from key at the current time and reports whether
// it is within the limit. Denied requests do not consume allowance.
func (l *RateLimiter) Allow(key netip.Addr) Decision {
	// The offset from epoch uses the monotonic clock when the clock provides
	// one, so wall-clock jumps do not grant or revoke allowance.
	now := l.now().Sub(l.epoch)
	d := Decision{Limit: l.limit, Window: l.window}

	s := l.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()

	tat, tracked := s.tat[key]
	if !tracked || tat < now {
		tat = now // idle: the full allowance is available
	}
	if ahead := tat - now; ahead > l.tolerance {
		d.Reset = ahead
		d.RetryAfter = ahead - l.tolerance
		return d
	}

	tat += l.interval
	if !tracked {
		s.makeRoom(now)
	}
	s.tat[key] = tat

	d.Allowed = true
	d.Reset = tat - now
	d.Remaining = int((l.burst - (tat - now)) / l.interval)
	return d
}

// Len returns the number of tracked keys.
func (l *RateLimiter) Len() int {
	n := 0
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		n += len(s.tat)
		s.mu.Unlock()
	}
	return n
}

func (l *RateLimiter) shard(key netip.Addr) *rlShard {
	// Seeded so that clients cannot pick addresses that all land in one
	// shard. Zones are ignored here; they only matter for map equality.
	b := key.As16()
	return &l.shards[maphash.Bytes(l.seed, b[:])%uint64(len(l.shards))]
}

// makeRoom ensures there is space for one more key. It must be called with
// s.mu held.
//
// A sweep costs a pass over the shard, so when it finds little to drop it
// also evicts arbitrary keys until a sixteenth of the shard is free: the
// next inserts then need no sweep, keeping the cost per new key amortised
// O(1) even when a flood of distinct addresses keeps the shard full.
func (s *rlShard) makeRoom(now time.Duration) {
	if len(s.tat) < s.cap {
		return
	}
	before := len(s.tat)
	for k, tat := range s.tat {
		if tat <= now {
			delete(s.tat, k)
		}
	}
	target := s.cap - max(1, s.cap/16)
	for k := range s.tat {
		if len(s.tat) <= target {
			break
		}
		delete(s.tat, k) // map order is unspecified: an arbitrary victim
	}
	// A Go map never shrinks, and the slots deletions leave behind are only
	// partly reused: under a stream of new clients the maps kept growing
	// while holding the same number of keys (5 MB after 100 000 addresses,
	// 34 MB after 8 000 000). Copying the survivors into a fresh map once a
	// shard's worth of keys has been dropped bounds the memory for about one
	// extra insert per new key (BenchmarkRateLimiterMemory).
	if s.dropped += before - len(s.tat); s.dropped >= s.cap {
		fresh := make(map[netip.Addr]time.Duration, s.cap)
		for k, tat := range s.tat {
			fresh[k] = tat
		}
		s.tat, s.dropped = fresh, 0
	}
}
