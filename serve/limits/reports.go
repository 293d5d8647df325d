package limits

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/netip"
	"time"

	"github.com/aistatus/aistatus/check"
	"github.com/redis/go-redis/v9"
)

// The crowd of callers shared across replicas: per service, a HyperLogLog
// of the current window's voices (so that one client is one voice whichever
// replica it reaches, and only a count can be read back), and each hour's
// sum of closed windows' counts for the baseline. No address is stored:
// a voice is added as the SHA-1 of a random salt of the window and the
// address, and the HyperLogLog and the salt expire one window after the
// window ends by the replica's clock (the margin is for replicas' clocks;
// a relative expiry, so that Redis's own clock does not matter). What
// survives a window is its count.
//
// One script does it all, atomically, in one round trip: close the
// previous window (add its count to its hour, and zero to the hours of
// windows that passed without a call), add the voice unless the window's
// count has reached the cap, and read the count and the baseline's sums.
// A service's keys share one hash tag, {slug}, so a Redis Cluster keeps
// them in one slot; the script builds them from that prefix.
//
// ARGV: the service's key prefix, the window's start (Unix seconds), the
// window's length (seconds; informative), the voice ("" to only read), a
// fresh salt (used if the window has none yet), the cap, the baseline's
// days, and how long the window's keys live (ms, by the replica's clock).
// It returns the count, the baseline's sum and days, and the window.
var crowdScript = redis.NewScript(`
local p = ARGV[1]
local win = tonumber(ARGV[2])
local voice = ARGV[4]
local cap = tonumber(ARGV[6])
local days = tonumber(ARGV[7])
local keep = (days + 1) * 86400
local ttl = tonumber(ARGV[8])
local cur = p .. 'cur'

local last = tonumber(redis.call('HGET', cur, 'win') or '0')
if last < win then
  if last > 0 then
    local n = tonumber(redis.call('HGET', cur, 'n') or '0')
    local h = last - last % 3600
    redis.call('INCRBY', p .. 'hour:' .. h, n)
    redis.call('EXPIRE', p .. 'hour:' .. h, keep)
    local t, steps = h + 3600, 0
    while t < win and steps < days * 24 do
      redis.call('INCRBY', p .. 'hour:' .. t, 0)
      redis.call('EXPIRE', p .. 'hour:' .. t, keep)
      t, steps = t + 3600, steps + 1
    end
  end
  redis.call('HSET', cur, 'win', win, 'n', 0)
  redis.call('EXPIRE', cur, keep)
elseif last > win then
  -- a replica whose clock is behind counts in the window already open
  win = last
end
local hll = p .. 'hll:' .. win
local salt = p .. 'salt:' .. win

if voice ~= '' then
  redis.call('SET', salt, ARGV[5], 'NX', 'PX', ttl)
  if redis.call('PFCOUNT', hll) < cap then
    redis.call('PFADD', hll, redis.sha1hex(redis.call('GET', salt) .. voice))
    redis.call('PEXPIRE', hll, ttl)
  end
end
local n = redis.call('PFCOUNT', hll)
if n > cap then n = cap end
redis.call('HSET', cur, 'n', n)

local h = win - win % 3600
local sum, known = 0, 0
for d = 1, days do
  local v = redis.call('GET', p .. 'hour:' .. (h - d * 86400))
  if v then
    sum, known = sum + tonumber(v), known + 1
  end
end
return {n, sum, known, win}
`)

// Crowd returns the crowd of callers shared through Redis, counted in
// windows of span (check.ReportWindow but in tests); while Redis fails it
// counts in fallback, this replica's own memory.
func (r *Redis) Crowd(span time.Duration, fallback *check.MemoryCrowd) check.Crowd {
	return redisCrowd{shared: r, span: span, fallback: fallback}
}

type redisCrowd struct {
	shared   *Redis
	span     time.Duration
	fallback *check.MemoryCrowd
}

// CrowdKeyPrefix is the prefix of a service's crowd keys.
func CrowdKeyPrefix(slug string) string { return RedisKeyPrefix + "reports:{" + slug + "}:" }

// Count implements check.Crowd.
func (c redisCrowd) Count(slug string, voice netip.Addr, now time.Time) check.Tally {
	if !c.shared.usable() {
		return c.fallback.Count(slug, voice, now)
	}
	start := now.Truncate(c.span)
	v := ""
	if voice.IsValid() {
		v = voice.String()
	}
	var salt [16]byte
	rand.Read(salt[:])
	var n, sum, known, win int64
	// Detached from the request, like the probe cache: a caller that hangs
	// up must not make Redis look failed.
	err := c.shared.call(context.Background(), func(ctx context.Context) error {
		res, err := crowdScript.Run(ctx, c.shared.rdb, []string{CrowdKeyPrefix(slug) + "cur"},
			CrowdKeyPrefix(slug), start.Unix(), int64(c.span/time.Second), v, hex.EncodeToString(salt[:]),
			check.MaxReportsPerWindow, check.BaselineDays, start.Add(2*c.span).Sub(now).Milliseconds()).Int64Slice()
		if err != nil {
			return err
		}
		if len(res) != 4 || res[0] < 0 || res[0] > check.MaxReportsPerWindow || res[1] < 0 || res[2] < 0 || res[2] > check.BaselineDays ||
			res[3] < start.Unix() || res[3] > start.Add(maxProbeSkew).Unix() {
			return fmt.Errorf("%w: crowd figures %v", errBadReply, res)
		}
		n, sum, known, win = res[0], res[1], res[2], res[3]
		return nil
	})
	if err != nil {
		return c.fallback.Count(slug, voice, now)
	}
	t := check.Tally{Window: time.Unix(win, 0).UTC(), Span: c.span, Count: int(n)}
	if known > 0 {
		b := float64(sum) / (float64(known) * float64(time.Hour/c.span))
		t.Baseline = &b
	}
	return t
}
