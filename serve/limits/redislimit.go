package limits

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"time"

	"github.com/aistatus/aistatus/serve/shared"
	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

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
	shared   *shared.Redis
	fallback *RateLimiter
}

// NewRedisLimiter returns a limiter of limit requests per window for each
// client, kept in conn's Redis, that decides with fallback while Redis fails.
func NewRedisLimiter(conn *shared.Redis, fallback *RateLimiter, limit int, window time.Duration) *RedisLimiter {
	return &RedisLimiter{
		rl:       redis_rate.NewLimiter(gcraScripts{conn.Client()}),
		limit:    redis_rate.Limit{Rate: limit, Burst: limit, Period: window},
		window:   window,
		shared:   conn,
		fallback: fallback,
	}
}

// Decide implements Limiter.
func (l *RedisLimiter) Decide(ctx context.Context, key netip.Addr) Decision {
	if !l.shared.Usable() {
		return l.fallback.Allow(key)
	}
	var d Decision
	err := l.shared.Call(ctx, func(ctx context.Context) error {
		res, err := l.rl.Allow(ctx, shared.RedisKeyPrefix+"rl:"+key.String(), l.limit)
		if errors.Is(err, redis.Nil) {
			// Nil is an answer to a GET, not to the script.
			return fmt.Errorf("%w: nil", shared.ErrBadReply)
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

// decision is the script's result as a Decision, or shared.ErrBadReply when a
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
			shared.ErrBadReply, res.Allowed, res.Remaining, res.ResetAfter, res.RetryAfter)
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
		cmd.SetErr(fmt.Errorf("%w: %d values, want 2 integers and 2 numbers", shared.ErrBadReply, len(v)))
	} else {
		cmd.SetErr(fmt.Errorf("%w: %T, want 2 integers and 2 numbers", shared.ErrBadReply, cmd.Val()))
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
