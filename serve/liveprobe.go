package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/aistatus/aistatus/probe"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/singleflight"
)

// liveProbeTTL is how long a live probe result is reused: any amount of
// /check traffic causes at most one outbound probe per service per TTL —
// per replica, or across all replicas when they share Redis.
const liveProbeTTL = 30 * time.Second

// sharedProbePoll is how often a replica that lost the race to probe looks
// for the winner's result in Redis.
const sharedProbePoll = 20 * time.Millisecond

// liveProber runs /check's live latency probes, coalesced and cached per
// probe URL. It only ever probes URLs from the catalog, never user input.
type liveProber struct {
	client  *http.Client
	timeout time.Duration
	now     func() time.Time
	group   singleflight.Group
	// shared, when set, is the Redis that replicas share results through.
	shared *redisShared

	mu    sync.Mutex
	cache map[string]liveEntry
}

type liveResult struct {
	probe snapshot.ProbeSource
	at    time.Time
}

// liveEntry is a cached result and when this replica stops reusing it: the
// probe's time plus the TTL, or, for a result read from Redis, the key's
// remaining TTL from the time it was read (so replicas' clocks need not agree).
type liveEntry struct {
	r     liveResult
	until time.Time
}

// sharedProbe is a result as stored in Redis.
type sharedProbe struct {
	Probe snapshot.ProbeSource `json:"probe"`
	At    time.Time            `json:"at"`
}

func newLiveProber(client *http.Client, timeout time.Duration, now func() time.Time, shared *redisShared) *liveProber {
	return &liveProber{client: client, timeout: timeout, now: now, shared: shared, cache: map[string]liveEntry{}}
}

// probe returns a result for url at most liveProbeTTL old, probing when the
// cached one is older. Concurrent callers share one outbound request.
func (p *liveProber) probe(url string) liveResult {
	if r, ok := p.cached(url); ok {
		return r
	}
	v, _, _ := p.group.Do(url, func() (any, error) {
		if r, ok := p.cached(url); ok { // filled while we waited for the group
			return r, nil
		}
		if p.shared != nil && p.shared.usable() {
			if e, ok := p.probeShared(url); ok {
				p.store(url, e)
				return e.r, nil
			}
		}
		r := p.probeNow(url)
		p.store(url, liveEntry{r: r, until: r.at.Add(liveProbeTTL)})
		return r, nil
	})
	return v.(liveResult)
}

// probeNow makes the outbound request.
func (p *liveProber) probeNow(url string) liveResult {
	// Detached from the request: a client that hangs up must not cancel
	// the probe other callers are waiting on.
	ctx, cancel := context.WithTimeout(context.Background(), p.timeout)
	defer cancel()
	return liveResult{probe: probe.Probe(ctx, p.client, url), at: p.now()}
}

// probeShared gets url's result through Redis: a fresh one another replica
// stored, or, when there is none, it takes a short lock (SET NX) so that only
// one replica probes, probes and stores the result for liveProbeTTL. A
// replica that finds the lock taken polls for the result for a little longer
// than a probe can take. It reports false when Redis failed, or when the
// lock holder never published (it died): the caller then probes locally.
func (p *liveProber) probeShared(url string) (liveEntry, bool) {
	// Detached from the request, like the probe itself.
	ctx := context.Background()
	key := redisKeyPrefix + "probe:" + url
	lock := key + ":lock"
	polls := int((p.timeout + 500*time.Millisecond) / sharedProbePoll)
	for range polls {
		if e, found, err := p.readShared(ctx, key); err != nil {
			return liveEntry{}, false
		} else if found {
			return e, true
		}
		cctx, cancel := context.WithTimeout(ctx, redisTimeout)
		// The lock outlives the longest probe, so a dead holder frees it.
		won, err := p.shared.rdb.SetNX(cctx, lock, "1", p.timeout+time.Second).Result()
		cancel()
		p.shared.result(ctx, err)
		if err != nil {
			return liveEntry{}, false
		}
		if won {
			// The previous holder may have stored its result and released
			// the lock between our read and our SET NX: read again, or two
			// replicas would probe back to back.
			if e, found, err := p.readShared(ctx, key); err != nil {
				return liveEntry{}, false
			} else if found {
				p.release(ctx, lock)
				return e, true
			}
			r := p.probeNow(url)
			b, _ := json.Marshal(sharedProbe{Probe: r.probe, At: r.at})
			cctx, cancel := context.WithTimeout(ctx, redisTimeout)
			_, err := p.shared.rdb.Pipelined(cctx, func(pipe redis.Pipeliner) error {
				pipe.Set(cctx, key, b, liveProbeTTL)
				pipe.Del(cctx, lock)
				return nil
			})
			cancel()
			// The result is good whether or not Redis took it; the other
			// replicas probe themselves once the lock expires.
			p.shared.result(ctx, err)
			return liveEntry{r: r, until: r.at.Add(liveProbeTTL)}, true
		}
		time.Sleep(sharedProbePoll)
	}
	return liveEntry{}, false
}

// release deletes the probe lock we hold, early: it would expire anyway.
func (p *liveProber) release(ctx context.Context, lock string) {
	cctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	p.shared.result(ctx, p.shared.rdb.Del(cctx, lock).Err())
}

// readShared reads a stored result and how long Redis keeps it.
func (p *liveProber) readShared(ctx context.Context, key string) (liveEntry, bool, error) {
	cctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	var get *redis.StringCmd
	var ttl *redis.DurationCmd
	_, err := p.shared.rdb.Pipelined(cctx, func(pipe redis.Pipeliner) error {
		get = pipe.Get(cctx, key)
		ttl = pipe.PTTL(cctx, key)
		return nil
	})
	if errors.Is(err, redis.Nil) {
		err = nil
	}
	p.shared.result(ctx, err)
	if err != nil {
		return liveEntry{}, false, err
	}
	b, gerr := get.Bytes()
	var sp sharedProbe
	if gerr != nil || ttl.Val() <= 0 || json.Unmarshal(b, &sp) != nil {
		// Missing, expiring this instant, or not ours to read: probe anew.
		return liveEntry{}, false, nil
	}
	return liveEntry{r: liveResult{probe: sp.Probe, at: sp.At}, until: p.now().Add(ttl.Val())}, true, nil
}

func (p *liveProber) store(url string, e liveEntry) {
	p.mu.Lock()
	p.cache[url] = e
	p.mu.Unlock()
}

func (p *liveProber) cached(url string) (liveResult, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.cache[url]
	return e.r, ok && p.now().Before(e.until)
}
