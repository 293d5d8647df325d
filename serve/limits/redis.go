package limits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/snapshot"
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
// requests down, and connections that fail on a reply over maxRedisReply
// instead of allocating what it announces.
func NewRedisClient(url string) (*redis.Client, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	dial := redis.NewDialer(opt) // TCP, TLS or a Unix socket, as the URL says
	opt.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return boundReplies(c), nil
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
	if err := safely(func() error { return rdb.Ping(ctx).Err() }); err != nil {
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
		err := safely(func() error { return r.rdb.Ping(ctx).Err() })
		r.mu.Lock()
		r.checking = false
		r.mu.Unlock()
		if err == nil {
			r.succeeded()
		}
	}()
	return false
}

// errBadReply is a reply this server did not ask for: of another type or
// shape than the command's, or with figures out of range. Redis does not
// send those; a Redis that does is failing, like one that does not answer.
var errBadReply = errors.New("redis: unexpected reply")

// safely runs fn, turning a panic into an error: a client library that
// chokes on a reply it did not expect (redis_rate asserts the script's
// reply types) must not take the request, or the process, with it.
func safely(fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: %v", errBadReply, v)
		}
	}()
	return fn()
}

// call runs op, bounded by redisTimeout and safely, for a request whose
// context is ctx, and records its outcome (result).
func (r *Redis) call(ctx context.Context, op func(ctx context.Context) error) error {
	cctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	err := safely(func() error { return op(cctx) })
	r.result(ctx, err)
	return err
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
//
// A reply that is not the script's (gcraScripts) or whose figures are out of
// range (decision) is Redis failing too: what reaches a client's RateLimit
// headers is always within the policy.
type RedisLimiter struct {
	rl       *redis_rate.Limiter
	limit    redis_rate.Limit
	window   time.Duration
	shared   *Redis
	fallback *RateLimiter
}

func NewRedisLimiter(shared *Redis, fallback *RateLimiter, limit int, window time.Duration) *RedisLimiter {
	return &RedisLimiter{
		rl:       redis_rate.NewLimiter(gcraScripts{shared.rdb}),
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
	var d Decision
	err := l.shared.call(ctx, func(ctx context.Context) error {
		res, err := l.rl.Allow(ctx, RedisKeyPrefix+"rl:"+key.String(), l.limit)
		if errors.Is(err, redis.Nil) {
			// Nil is an answer to a GET, not to the script.
			return fmt.Errorf("%w: nil", errBadReply)
		}
		if err != nil {
			return err
		}
		d, err = l.decision(res)
		return err
	})
	if err != nil {
		return l.fallback.Allow(key)
	}
	return d
}

// roundingSlack is how far past the window the script's reset and
// retry-after may be and still be in range: they are differences of
// floating-point seconds since 2017 (a few hundred million, so with about
// 60 ns of precision), printed with 14 significant digits.
const roundingSlack = time.Millisecond

// decision is the script's result as a Decision, or errBadReply when a
// figure is out of range: allowed 0 or 1, remaining within [0, limit],
// reset within [0, window], and retry-after within (0, window] when denied
// (redis_rate reports -1, "not applicable", when allowed).
func (l *RedisLimiter) decision(res *redis_rate.Result) (Decision, error) {
	longest := l.window + roundingSlack
	allowed := res.Allowed == 1
	if (!allowed && res.Allowed != 0) ||
		res.Remaining < 0 || res.Remaining > l.limit.Rate ||
		res.ResetAfter < 0 || res.ResetAfter > longest ||
		(allowed && res.RetryAfter > 0) ||
		(!allowed && (res.RetryAfter <= 0 || res.RetryAfter > longest)) {
		return Decision{}, fmt.Errorf("%w: allowed %d, remaining %d, reset %v, retry after %v",
			errBadReply, res.Allowed, res.Remaining, res.ResetAfter, res.RetryAfter)
	}
	d := Decision{
		Allowed:   allowed,
		Limit:     l.limit.Rate,
		Window:    l.window,
		Remaining: res.Remaining,
		Reset:     min(res.ResetAfter, l.window),
	}
	if !allowed {
		d.RetryAfter = min(res.RetryAfter, l.window)
		d.Remaining = 0
	}
	return d, nil
}

// gcraScripts is the client redis_rate runs its script through. It checks
// that a reply has the script's shape — two integers, then two finite
// numbers as strings — before redis_rate reads it, which it does with type
// assertions that panic on anything else.
type gcraScripts struct{ redis.UniversalClient }

func (s gcraScripts) EvalSha(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	return checkGCRAReply(s.UniversalClient.EvalSha(ctx, sha1, keys, args...))
}

func (s gcraScripts) Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return checkGCRAReply(s.UniversalClient.Eval(ctx, script, keys, args...))
}

func checkGCRAReply(cmd *redis.Cmd) *redis.Cmd {
	if cmd.Err() != nil {
		return cmd
	}
	v, ok := cmd.Val().([]any)
	if ok && len(v) == 4 {
		_, allowed := v[0].(int64)
		_, remaining := v[1].(int64)
		if allowed && remaining && finiteNumber(v[2]) && finiteNumber(v[3]) {
			return cmd
		}
	}
	if ok {
		cmd.SetErr(fmt.Errorf("%w: %d values, want 2 integers and 2 numbers", errBadReply, len(v)))
	} else {
		cmd.SetErr(fmt.Errorf("%w: %T, want 2 integers and 2 numbers", errBadReply, cmd.Val()))
	}
	return cmd
}

// finiteNumber reports whether v is a string holding a finite number.
func finiteNumber(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
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
// or failed, when the lock holder never published (it died), or when Redis
// holds a value this server did not store (stored): the caller then probes
// locally.
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
		var won bool
		err := p.shared.call(ctx, func(ctx context.Context) (err error) {
			// The lock outlives the longest probe, so a dead holder frees it.
			won, err = p.shared.rdb.SetNX(ctx, lock, "1", p.timeout+time.Second).Result()
			return err
		})
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
			// The result is good whether or not Redis takes it; the other
			// replicas probe themselves once the lock expires.
			p.shared.call(ctx, func(ctx context.Context) error {
				_, err := p.shared.rdb.Pipelined(ctx, func(pipe redis.Pipeliner) error {
					pipe.Set(ctx, key, b, check.LiveTTL)
					pipe.Del(ctx, lock)
					return nil
				})
				return err
			})
			return r, r.At.Add(check.LiveTTL), true
		}
		time.Sleep(sharedProbePoll)
	}
	return check.Live{}, time.Time{}, false
}

// release deletes the probe lock we hold, early: it would expire anyway.
func (p redisProbes) release(ctx context.Context, lock string) {
	p.shared.call(ctx, func(ctx context.Context) error { return p.shared.rdb.Del(ctx, lock).Err() })
}

// read reads a stored result and until when this replica may reuse it: for
// as long as Redis keeps it, counted on this replica's clock.
func (p redisProbes) read(ctx context.Context, key string) (r check.Live, until time.Time, found bool, err error) {
	var get *redis.StringCmd
	var ttl *redis.DurationCmd
	err = p.shared.call(ctx, func(ctx context.Context) error {
		_, err := p.shared.rdb.Pipelined(ctx, func(pipe redis.Pipeliner) error {
			get = pipe.Get(ctx, key)
			ttl = pipe.PTTL(ctx, key)
			return nil
		})
		if errors.Is(err, redis.Nil) {
			return nil // no such key: the GET's error, read below
		}
		return err
	})
	if err != nil {
		return check.Live{}, time.Time{}, false, err
	}
	r, left, found, bad := p.stored(get, ttl)
	if bad != "" {
		p.shared.log.Warn().Str("key", key).Str("why", bad).
			Msg("redis holds a probe result this server did not store: ignored, probing locally")
		return check.Live{}, time.Time{}, false, errBadStored
	}
	if !found {
		return check.Live{}, time.Time{}, false, nil
	}
	return r, p.shared.now().Add(left), true, nil
}

// maxProbeValue bounds a stored probe result: the ones this server stores
// are about 150 bytes, and the error of a failed probe a line.
const maxProbeValue = 16 << 10

// maxProbeSkew is how far a stored result's time may be from this
// replica's clock. Replicas' clocks need not agree to the second, but a
// result made in the last check.LiveTTL by any of them is not an hour away.
const maxProbeSkew = time.Hour

// errBadStored is a stored probe result this server could not have stored.
var errBadStored = errors.New("not a probe result")

// stored is the result a GET and a PTTL read and how long Redis keeps it.
// found is false when there is none or it expires this instant: the replica
// probes anew and stores its own. bad says why the value is not a result
// this server could have stored: not one of its states, a latency outside
// the probe timeout, an HTTP status outside 100–599, a time over
// maxProbeSkew from this replica's clock, over maxProbeValue, or kept
// longer than check.LiveTTL. Such a value is not served to clients, nor
// is its TTL (how long this replica reuses it) trusted: the caller probes
// locally. Redis itself answered, so it stays in use.
func (p redisProbes) stored(get *redis.StringCmd, ttl *redis.DurationCmd) (r check.Live, left time.Duration, found bool, bad string) {
	if get.Err() != nil || ttl.Val() <= 0 {
		return check.Live{}, 0, false, ""
	}
	v := get.Val()
	switch {
	case len(v) > maxProbeValue:
		return check.Live{}, 0, false, fmt.Sprintf("%d bytes", len(v))
	case ttl.Val() > check.LiveTTL:
		return check.Live{}, 0, false, fmt.Sprintf("kept for %v", ttl.Val())
	case json.Unmarshal([]byte(v), &r) != nil:
		return check.Live{}, 0, false, "not JSON of a probe result"
	}
	pr, longest := r.Probe, float64((p.timeout + time.Second).Milliseconds())
	switch {
	case pr.State != snapshot.ProbeOK && pr.State != snapshot.ProbeFailed:
		bad = fmt.Sprintf("state %.40q", pr.State)
	case pr.LatencyMs != nil && !(*pr.LatencyMs >= 0 && *pr.LatencyMs <= longest):
		bad = fmt.Sprintf("latency %g ms", *pr.LatencyMs)
	case pr.HTTPStatus != 0 && (pr.HTTPStatus < 100 || pr.HTTPStatus > 599):
		bad = fmt.Sprintf("HTTP status %d", pr.HTTPStatus)
	case r.At.IsZero() || r.At.Sub(p.shared.now()).Abs() > maxProbeSkew:
		bad = fmt.Sprintf("made at %v", r.At)
	default:
		return r, ttl.Val(), true, ""
	}
	return check.Live{}, 0, false, bad
}
