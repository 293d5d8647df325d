package limits

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aistatus/aistatus/check"
	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"
)

// State shared across replicas (Options.Redis): the per-client rate limit
// and /check's live-probe cache. Redis is an optimisation of correctness
// across replicas, never a dependency of an answer: while it is unreachable
// every replica uses its own limiter and cache, and it goes back to Redis
// once Redis answers again.

// RedisKeyPrefix namespaces every key this server writes, so a Redis shared
// with other applications is safe.
const RedisKeyPrefix = "aistatus:"

// redisTimeout bounds every Redis command. Redis on the same network answers
// in well under a millisecond; anything slower is treated as an outage, so a
// sick Redis costs a request at most this much before the fallback takes over.
const redisTimeout = 250 * time.Millisecond

// redisRecheckEvery is how often a replica in fallback tries Redis again.
const redisRecheckEvery = time.Second

// NewRedisClient returns a client for a redis:// or rediss:// URL (for
// example redis://127.0.0.1:6379/0), with timeouts short enough that an
// unreachable Redis degrades to the local fallback instead of slowing
// requests down.
func NewRedisClient(url string) (*redis.Client, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	opt.DialTimeout = redisTimeout
	opt.ReadTimeout = redisTimeout
	opt.WriteTimeout = redisTimeout
	opt.PoolTimeout = redisTimeout
	// A retry would double the time a request waits on a Redis that is
	// down; the fallback is the retry. Likewise for dials (0 means 5).
	opt.MaxRetries = -1
	opt.DialerRetries = 1
	// CLIENT SETINFO is unknown before Redis 7.2 (Debian 12 ships 7.0) and
	// only labels the connection.
	opt.DisableIdentity = true
	return redis.NewClient(opt), nil
}

// SharedStatus reports where a server keeps the state replicas share: the
// health hook for readiness endpoints and operators.
type SharedStatus struct {
	// Redis is true when the server was configured with Redis.
	Redis bool `json:"redis"`
	// OK is true while Redis answers; false means each replica is using its
	// own limiter and probe cache (the fallback).
	OK bool `json:"ok"`
	// Since is when the current state began (zero without Redis).
	Since time.Time `json:"since,omitzero"`
}

// String is the state in words: "redis ok", "fallback local" or "local"
// (no Redis configured).
func (s SharedStatus) String() string {
	switch {
	case !s.Redis:
		return "local"
	case s.OK:
		return "redis ok"
	default:
		return "fallback local"
	}
}

// Redis tracks the health of the Redis connection. Transitions are
// logged once each, not per request.
type Redis struct {
	rdb redis.UniversalClient
	log zerolog.Logger
	now func() time.Time

	ok atomic.Bool // read on every request without the mutex

	mu       sync.Mutex
	since    time.Time
	lastTry  time.Time
	checking bool
}

// NewRedis pings Redis once, synchronously, so that a replica starts in
// the right state instead of answering its first requests from the fallback.
func NewRedis(rdb redis.UniversalClient, log zerolog.Logger, now func() time.Time) *Redis {
	r := &Redis{rdb: rdb, log: log, now: now, since: now(), lastTry: now()}
	ctx, cancel := context.WithTimeout(context.Background(), 2*redisTimeout)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		log.Warn().Err(err).Msg("redis unreachable at start: rate limit and probe cache are local to this replica until it answers")
	} else {
		r.ok.Store(true)
		log.Info().Msg("redis reachable: rate limit and probe cache are shared")
	}
	return r
}

// Status is where the shared state is kept now.
func (r *Redis) Status() SharedStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return SharedStatus{Redis: true, OK: r.ok.Load(), Since: r.since}
}

// usable reports whether to use Redis for this request. In fallback it
// starts, at most once per redisRecheckEvery, a background ping that brings
// the replica back to Redis; the request itself never waits for it.
func (r *Redis) usable() bool {
	if r.ok.Load() {
		return true
	}
	r.mu.Lock()
	now := r.now()
	if r.checking || now.Sub(r.lastTry) < redisRecheckEvery {
		r.mu.Unlock()
		return false
	}
	r.checking, r.lastTry = true, now
	r.mu.Unlock()
	go func() {
		// Detached from any request: it outlives the one that started it,
		// and is bounded by redisTimeout.
		ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
		defer cancel()
		err := r.rdb.Ping(ctx).Err()
		r.mu.Lock()
		r.checking = false
		r.mu.Unlock()
		if err == nil {
			r.succeeded()
		}
	}()
	return false
}

// result records the outcome of a Redis command made for a request whose
// context is ctx. A command cut short because the client went away says
// nothing about Redis.
func (r *Redis) result(ctx context.Context, err error) {
	switch {
	case err == nil || errors.Is(err, redis.Nil):
		r.succeeded()
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
	default:
		r.failed(err)
	}
}

func (r *Redis) succeeded() {
	if r.ok.Load() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ok.Swap(true) {
		return
	}
	r.log.Info().Dur("after", r.now().Sub(r.since)).Msg("redis answers again: rate limit and probe cache are shared again")
	r.since = r.now()
}

func (r *Redis) failed(err error) {
	if !r.ok.Load() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.ok.Swap(false) {
		return
	}
	r.log.Error().Err(err).Msg("redis failed: falling back to this replica's own rate limit and probe cache")
	r.since, r.lastTry = r.now(), r.now()
}

// Limiter decides whether a client's request is within its budget. The
// local GCRA (RateLimiter) and the Redis one (RedisLimiter) are
// interchangeable behind it.
type Limiter interface {
	Decide(ctx context.Context, key netip.Addr) Decision
}

// Decide is Allow; ctx is unused (the state is in memory).
func (l *RateLimiter) Decide(_ context.Context, key netip.Addr) Decision { return l.Allow(key) }

// RedisLimiter is the same GCRA, with each client's theoretical arrival time
// kept in Redis and updated atomically there (go-redis/redis_rate's Lua
// script), so that one client has one budget across every replica. While
// Redis fails it decides with the local limiter; a client then has one
// budget per replica, with the allowance it had locally rather than in Redis.
type RedisLimiter struct {
	rl       *redis_rate.Limiter
	limit    redis_rate.Limit
	window   time.Duration
	shared   *Redis
	fallback *RateLimiter
}

func NewRedisLimiter(shared *Redis, fallback *RateLimiter, limit int, window time.Duration) *RedisLimiter {
	return &RedisLimiter{
		rl:       redis_rate.NewLimiter(shared.rdb),
		limit:    redis_rate.Limit{Rate: limit, Burst: limit, Period: window},
		window:   window,
		shared:   shared,
		fallback: fallback,
	}
}

// Decide implements Limiter.
func (l *RedisLimiter) Decide(ctx context.Context, key netip.Addr) Decision {
	if !l.shared.usable() {
		return l.fallback.Allow(key)
	}
	cctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	res, err := l.rl.Allow(cctx, RedisKeyPrefix+"rl:"+key.String(), l.limit)
	l.shared.result(ctx, err)
	if err != nil {
		return l.fallback.Allow(key)
	}
	d := Decision{
		Allowed:   res.Allowed > 0,
		Limit:     l.limit.Rate,
		Window:    l.window,
		Remaining: res.Remaining,
		Reset:     res.ResetAfter,
	}
	if !d.Allowed {
		// redis_rate reports -1 for "not applicable" when allowed.
		d.RetryAfter = max(0, res.RetryAfter)
		d.Remaining = 0
	}
	return d
}

// sharedProbePoll is how often a replica that lost the race to probe looks
// for the winner's result in Redis.
const sharedProbePoll = 20 * time.Millisecond

// ProbeCache returns /check's live-probe cache shared through Redis (a
// check.Shared): one replica probes a URL per check.LiveTTL, the others read
// its result. timeout is the longest a probe takes.
func (r *Redis) ProbeCache(timeout time.Duration) check.Shared {
	return redisProbes{shared: r, timeout: timeout}
}

// redisProbes is the shared probe cache.
type redisProbes struct {
	shared *Redis
	// timeout is the longest a probe takes: the lock outlives it, and a
	// replica waiting for the holder's result gives up a little after it.
	timeout time.Duration
}

// Fetch gets url's result through Redis: a fresh one another replica
// stored, or, when there is none, it takes a short lock (SET NX) so that
// only one replica probes, probes and stores the result for check.LiveTTL.
// A replica that finds the lock taken polls for the result for a little
// longer than a probe can take. It reports false when Redis is in fallback
// or failed, or when the lock holder never published (it died): the caller
// then probes locally.
func (p redisProbes) Fetch(url string, probe func() check.Live) (check.Live, time.Time, bool) {
	if !p.shared.usable() {
		return check.Live{}, time.Time{}, false
	}
	// Detached from the request, like the probe itself.
	ctx := context.Background()
	key := RedisKeyPrefix + "probe:" + url
	lock := key + ":lock"
	polls := int((p.timeout + 500*time.Millisecond) / sharedProbePoll)
	for range polls {
		if r, until, found, err := p.read(ctx, key); err != nil {
			return check.Live{}, time.Time{}, false
		} else if found {
			return r, until, true
		}
		cctx, cancel := context.WithTimeout(ctx, redisTimeout)
		// The lock outlives the longest probe, so a dead holder frees it.
		won, err := p.shared.rdb.SetNX(cctx, lock, "1", p.timeout+time.Second).Result()
		cancel()
		p.shared.result(ctx, err)
		if err != nil {
			return check.Live{}, time.Time{}, false
		}
		if won {
			// The previous holder may have stored its result and released
			// the lock between our read and our SET NX: read again, or two
			// replicas would probe back to back.
			if r, until, found, err := p.read(ctx, key); err != nil {
				return check.Live{}, time.Time{}, false
			} else if found {
				p.release(ctx, lock)
				return r, until, true
			}
			r := probe()
			b, _ := json.Marshal(r)
			cctx, cancel := context.WithTimeout(ctx, redisTimeout)
			_, err := p.shared.rdb.Pipelined(cctx, func(pipe redis.Pipeliner) error {
				pipe.Set(cctx, key, b, check.LiveTTL)
				pipe.Del(cctx, lock)
				return nil
			})
			cancel()
			// The result is good whether or not Redis took it; the other
			// replicas probe themselves once the lock expires.
			p.shared.result(ctx, err)
			return r, r.At.Add(check.LiveTTL), true
		}
		time.Sleep(sharedProbePoll)
	}
	return check.Live{}, time.Time{}, false
}

// release deletes the probe lock we hold, early: it would expire anyway.
func (p redisProbes) release(ctx context.Context, lock string) {
	cctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	p.shared.result(ctx, p.shared.rdb.Del(cctx, lock).Err())
}

// read reads a stored result and until when this replica may reuse it: for
// as long as Redis keeps it, counted on this replica's clock.
func (p redisProbes) read(ctx context.Context, key string) (r check.Live, until time.Time, found bool, err error) {
	cctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	var get *redis.StringCmd
	var ttl *redis.DurationCmd
	_, err = p.shared.rdb.Pipelined(cctx, func(pipe redis.Pipeliner) error {
		get = pipe.Get(cctx, key)
		ttl = pipe.PTTL(cctx, key)
		return nil
	})
	if errors.Is(err, redis.Nil) {
		err = nil
	}
	p.shared.result(ctx, err)
	if err != nil {
		return check.Live{}, time.Time{}, false, err
	}
	b, gerr := get.Bytes()
	if gerr != nil || ttl.Val() <= 0 || json.Unmarshal(b, &r) != nil {
		// Missing, expiring this instant, or not ours to read: probe anew.
		return check.Live{}, time.Time{}, false, nil
	}
	return r, p.shared.now().Add(ttl.Val()), true, nil
}
