package shared

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/check"
	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"
)

// State shared across replicas (serve's Options.Redis): the per-client rate
// limit (limits.RedisLimiter), /check's live-probe cache and the crowd's
// counts. Redis is an optimisation of correctness across replicas, never a
// dependency of an answer: while it is unreachable every replica uses its
// own limiter and cache, and it goes back to Redis once Redis answers again.

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

// Status reports where a server keeps the state replicas share: the
// health hook for readiness endpoints and operators.
type Status struct {
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
func (s Status) String() string {
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
func (r *Redis) Status() Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Status{Redis: true, OK: r.ok.Load(), Since: r.since}
}

// Client is the Redis client, for commands run through Call (the rate
// limiter's script, in limits).
func (r *Redis) Client() redis.UniversalClient { return r.rdb }

// Usable reports whether to use Redis for this request. In fallback it
// starts, at most once per redisRecheckEvery, a background ping that brings
// the replica back to Redis; the request itself never waits for it. A
// caller that gets false uses its own state instead (limits.RedisLimiter
// its local limiter, the crowd and the probe cache the replica's own).
func (r *Redis) Usable() bool {
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

// ErrBadReply is a reply this server did not ask for: of another type or
// shape than the command's, or with figures out of range. Redis does not
// send those; a Redis that does is failing, like one that does not answer.
// Callers of Call return it (wrapped) for a reply they find out of range,
// so that Call records Redis as failing.
var ErrBadReply = errors.New("redis: unexpected reply")

// safely runs fn, turning a panic into an error: a client library that
// chokes on a reply it did not expect (redis_rate asserts the script's
// reply types) must not take the request, or the process, with it.
func safely(fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: %v", ErrBadReply, v)
		}
	}()
	return fn()
}

// Call runs op, bounded by redisTimeout and safely (a panic in op is an
// ErrBadReply), for a request whose context is ctx, and records its outcome:
// an error other than redis.Nil, or than the request going away, puts the
// replica in fallback until Redis answers again. Every command this server
// sends to Redis goes through Call, on Client.
func (r *Redis) Call(ctx context.Context, op func(ctx context.Context) error) error {
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

// sharedProbePoll is how often a replica that lost the race to probe looks
// for the winner's result in Redis.
const sharedProbePoll = 20 * time.Millisecond

// ProbeCache returns /check's live-probe cache shared through Redis (a
// check.Shared): one replica probes a URL per check.LiveTTL, the others read
// its result. timeout is the longest a probe takes. With a vantage name
// (serve --vantage) the cache is that vantage's own: what a replica in one
// region sees of a host is not what every region sees, so only the
// replicas of the same vantage share a result.
func (r *Redis) ProbeCache(timeout time.Duration, vantage string) check.Shared {
	prefix := RedisKeyPrefix + "probe:"
	if vantage != "" {
		prefix += vantage + ":"
	}
	return redisProbes{shared: r, timeout: timeout, prefix: prefix}
}

// redisProbes is the shared probe cache.
type redisProbes struct {
	shared *Redis
	// timeout is the longest a probe takes: the lock outlives it, and a
	// replica waiting for the holder's result gives up a little after it.
	timeout time.Duration
	// prefix starts every key: aistatus:probe:, and the vantage's name.
	prefix string
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
	if !p.shared.Usable() {
		return check.Live{}, time.Time{}, false
	}
	// Detached from the request, like the probe itself.
	ctx := context.Background()
	key := p.prefix + url
	lock := key + ":lock"
	polls := int((p.timeout + 500*time.Millisecond) / sharedProbePoll)
	for range polls {
		if r, until, found, err := p.read(ctx, key); err != nil {
			return check.Live{}, time.Time{}, false
		} else if found {
			return r, until, true
		}
		var won bool
		err := p.shared.Call(ctx, func(ctx context.Context) (err error) {
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
			p.shared.Call(ctx, func(ctx context.Context) error {
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
	p.shared.Call(ctx, func(ctx context.Context) error { return p.shared.rdb.Del(ctx, lock).Err() })
}

// read reads a stored result and until when this replica may reuse it: for
// as long as Redis keeps it, counted on this replica's clock.
func (p redisProbes) read(ctx context.Context, key string) (r check.Live, until time.Time, found bool, err error) {
	var get *redis.StringCmd
	var ttl *redis.DurationCmd
	err = p.shared.Call(ctx, func(ctx context.Context) error {
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
	case pr.State != api.ProbeOK && pr.State != api.ProbeFailed:
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
