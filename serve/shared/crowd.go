package shared

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"
	"time"

	"github.com/aistatus/aistatus/check"
	"github.com/redis/go-redis/v9"
)

// The crowd's keys in Redis (check.Crowd across replicas):
//
//   - crowd:salt:{window}: a random salt for the window, SET NX by the first
//     replica to count in it; it expires with the window's voices.
//   - crowd:voices:{slug}:{window}: a set of the window's voices, each the
//     SHA-256 of salt and the client's network (check.Network: an IPv4 /24
//     or an IPv6 /48), at most check.MaxReportsPerWindow
//     (addVoice). It expires soon after the window ends: no voice, and no
//     way to test an address against it once the salt is gone, outlives
//     the window. A set, not a HyperLogLog: the count is exact, where an
//     estimate one off near check.SurgeMinReports changes the state (a
//     HyperLogLog miscounted 20 voices about once in 80 windows); the cap
//     bounds a set to about 80 KB.
//   - crowd:n:{slug}:{day}: a hash of that day's counts by window start
//     (the count when last reported), kept for the baseline's days.
//   - crowd:since: when counting began (SET NX), so that the baseline
//     counts only days the counter ran.
const (
	crowdVoicesTTL = 2 * check.ReportWindow
	crowdCountsTTL = (check.BaselineDays + 2) * 24 * time.Hour
)

// RedisCrowd counts reports across replicas. While Redis fails it counts in
// the replica's own MemoryCrowd, which then holds that replica's voices only.
type RedisCrowd struct {
	shared   *Redis
	fallback *check.MemoryCrowd

	mu sync.Mutex
	// salts caches the shared salt of recent windows; since caches
	// crowd:since once read.
	salts map[time.Time]string
	since time.Time
	// baselines caches each service's baseline per hour: it changes only
	// when the hour does (the current hour's windows are not in it).
	baselines map[string]cachedBaseline
}

type cachedBaseline struct {
	hour     time.Time
	baseline *float64
}

// Crowd returns the crowd shared through Redis, with fallback for while
// Redis fails.
func (r *Redis) Crowd(fallback *check.MemoryCrowd) *RedisCrowd {
	return &RedisCrowd{shared: r, fallback: fallback, salts: map[time.Time]string{}, baselines: map[string]cachedBaseline{}}
}

// Report implements check.Crowd.
func (c *RedisCrowd) Report(slug, voice string, t time.Time) (check.ReportCount, bool) {
	if !c.shared.Usable() {
		return c.fallback.Report(slug, voice, t)
	}
	ctx := context.Background()
	window := check.WindowOf(t)
	salt, err := c.salt(ctx, window)
	if err != nil {
		return c.fallback.Report(slug, voice, t)
	}
	salted := sha256.Sum256([]byte(salt + "\x00" + voice))
	var count int64
	err = c.shared.Call(ctx, func(ctx context.Context) (err error) {
		count, err = addVoice.Run(ctx, c.shared.rdb, []string{c.voicesKey(slug, window)},
			hex.EncodeToString(salted[:16]), check.MaxReportsPerWindow, crowdVoicesTTL.Milliseconds()).Int64()
		return err
	})
	if err != nil {
		return c.fallback.Report(slug, voice, t)
	}
	n := int(min(max(count, 0), check.MaxReportsPerWindow))
	// The count is kept for the baseline; a failure here loses one
	// window's figure, not the answer.
	day := c.countsKey(slug, window)
	c.shared.Call(ctx, func(ctx context.Context) error {
		_, err := c.shared.rdb.Pipelined(ctx, func(pipe redis.Pipeliner) error {
			pipe.HSet(ctx, day, strconv.FormatInt(window.Unix(), 10), n)
			pipe.Expire(ctx, day, crowdCountsTTL)
			return nil
		})
		return err
	})
	return check.ReportCount{Window: window, Count: n, Baseline: c.baseline(ctx, slug, t)}, true
}

// Count implements check.Crowd: CountAll of one service.
func (c *RedisCrowd) Count(slug string, t time.Time) (check.ReportCount, bool) {
	rc, ok := c.CountAll([]string{slug}, t)[slug]
	return rc, ok
}

// CountAll implements check.Crowd: the windows' sizes in one pipeline,
// not a round trip a service, each with its baseline (cached for the
// hour). While Redis fails, this replica's own counts answer.
func (c *RedisCrowd) CountAll(slugs []string, t time.Time) map[string]check.ReportCount {
	if !c.shared.Usable() {
		return c.fallback.CountAll(slugs, t)
	}
	ctx := context.Background()
	window := check.WindowOf(t)
	cmds := make([]*redis.IntCmd, len(slugs))
	err := c.shared.Call(ctx, func(ctx context.Context) error {
		_, err := c.shared.rdb.Pipelined(ctx, func(pipe redis.Pipeliner) error {
			for i, slug := range slugs {
				cmds[i] = pipe.SCard(ctx, c.voicesKey(slug, window))
			}
			return nil
		})
		return err
	})
	if err != nil {
		return c.fallback.CountAll(slugs, t)
	}
	out := make(map[string]check.ReportCount, len(slugs))
	for i, slug := range slugs {
		n := cmds[i].Val()
		out[slug] = check.ReportCount{Window: window, Count: int(min(max(n, 0), check.MaxReportsPerWindow)), Baseline: c.baseline(ctx, slug, t)}
	}
	return out
}

// addVoice adds a voice (ARGV[1]) to a window's set (KEYS[1]) unless it
// holds the cap (ARGV[2]) already, renews its expiry (ARGV[3], in ms) and
// returns its count. One script, so that replicas adding at once cannot
// take the set past the cap. A Script holds only its source and hash.
var addVoice = redis.NewScript(`
if redis.call('SCARD', KEYS[1]) < tonumber(ARGV[2]) then
	redis.call('SADD', KEYS[1], ARGV[1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return redis.call('SCARD', KEYS[1])
`)

func (c *RedisCrowd) voicesKey(slug string, window time.Time) string {
	return RedisKeyPrefix + "crowd:voices:" + slug + ":" + strconv.FormatInt(window.Unix(), 10)
}

func (c *RedisCrowd) countsKey(slug string, window time.Time) string {
	return RedisKeyPrefix + "crowd:n:" + slug + ":" + window.Format(time.DateOnly)
}

// salt is the window's shared salt: this replica's cached copy, or the one
// in Redis, set there first if no replica has.
func (c *RedisCrowd) salt(ctx context.Context, window time.Time) (string, error) {
	c.mu.Lock()
	salt, ok := c.salts[window]
	c.mu.Unlock()
	if ok {
		return salt, nil
	}
	key := RedisKeyPrefix + "crowd:salt:" + strconv.FormatInt(window.Unix(), 10)
	err := c.shared.Call(ctx, func(ctx context.Context) error {
		salt = rand.Text()
		if err := c.shared.rdb.SetNX(ctx, key, salt, crowdVoicesTTL).Err(); err != nil {
			return err
		}
		var err error
		salt, err = c.shared.rdb.Get(ctx, key).Result()
		return err
	})
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for w := range c.salts {
		if w.Before(window) {
			delete(c.salts, w)
		}
	}
	c.salts[window] = salt
	return salt, nil
}

// baseline reads the service's baseline for t's hour: the counts of the
// same hour on the previous days the counter ran, one HMGET a day in one
// pipeline, cached for the hour. A failure is no baseline, not an error.
func (c *RedisCrowd) baseline(ctx context.Context, slug string, t time.Time) *float64 {
	hour := t.UTC().Truncate(time.Hour)
	c.mu.Lock()
	cached, ok := c.baselines[slug]
	c.mu.Unlock()
	if ok && cached.hour.Equal(hour) {
		return cached.baseline
	}
	since, ok := c.countingSince(ctx, t)
	if !ok {
		return nil
	}
	days := check.BaselineWindows(t, since)
	counts := map[time.Time]int{}
	err := c.shared.Call(ctx, func(ctx context.Context) error {
		cmds := make([]*redis.SliceCmd, len(days))
		_, err := c.shared.rdb.Pipelined(ctx, func(pipe redis.Pipeliner) error {
			for i, day := range days {
				fields := make([]string, len(day))
				for j, w := range day {
					fields[j] = strconv.FormatInt(w.Unix(), 10)
				}
				cmds[i] = pipe.HMGet(ctx, c.countsKey(slug, day[0]), fields...)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for i, day := range days {
			for j, v := range cmds[i].Val() {
				if s, ok := v.(string); ok {
					n, _ := strconv.Atoi(s)
					counts[day[j]] = min(max(n, 0), check.MaxReportsPerWindow)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil
	}
	b := check.Baseline(days, func(w time.Time) int { return counts[w] })
	c.mu.Lock()
	c.baselines[slug] = cachedBaseline{hour: hour, baseline: b}
	c.mu.Unlock()
	return b
}

// countingSince is when counting began across replicas: crowd:since, set
// to t by the first replica that asks.
func (c *RedisCrowd) countingSince(ctx context.Context, t time.Time) (time.Time, bool) {
	c.mu.Lock()
	since := c.since
	c.mu.Unlock()
	if !since.IsZero() {
		return since, true
	}
	key := RedisKeyPrefix + "crowd:since"
	var raw string
	err := c.shared.Call(ctx, func(ctx context.Context) error {
		if err := c.shared.rdb.SetNX(ctx, key, t.UTC().Unix(), 0).Err(); err != nil {
			return err
		}
		var err error
		raw, err = c.shared.rdb.Get(ctx, key).Result()
		return err
	})
	sec, perr := strconv.ParseInt(raw, 10, 64)
	if err != nil || perr != nil {
		return time.Time{}, false
	}
	since = time.Unix(sec, 0).UTC()
	c.mu.Lock()
	c.since = since
	c.mu.Unlock()
	return since, true
}
