package check

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/probe"
	"golang.org/x/sync/singleflight"
)

// LiveTTL is how long a live probe result is reused: any amount of /check
// traffic causes at most one outbound probe per service per TTL — per
// replica, or across all replicas when they share a cache.
const LiveTTL = 30 * time.Second

// DefaultProbeTimeout bounds one live probe unless the caller says
// otherwise: long enough for a slow TLS handshake across an ocean, short
// enough that /check answers promptly when the API does not.
const DefaultProbeTimeout = 5 * time.Second

// Live is one live probe of a service's API and when it was made.
type Live struct {
	Probe api.ProbeSource `json:"probe"`
	At    time.Time       `json:"at"`
}

// Prober gives the engine our live probe of a catalog probe URL.
type Prober interface {
	Probe(url string) Live
}

// Shared is a probe cache that replicas share (serve keeps one in Redis).
// Fetch returns url's result as another replica stored it, or has probe
// make it (once across the replicas) and stores it, with the time until
// which this replica may reuse it. ok is false when the shared cache cannot
// be used now: the caller then probes on its own.
type Shared interface {
	Fetch(url string, probe func() Live) (r Live, until time.Time, ok bool)
}

// Cache is the live prober: it probes a URL at most once per LiveTTL,
// however many callers ask at once, and only URLs from the catalog (the
// engine never passes it user input).
type Cache struct {
	client  *http.Client
	timeout time.Duration
	now     func() time.Time
	group   singleflight.Group
	// shared, when set, is asked before probing locally.
	shared Shared

	mu    sync.Mutex
	cache map[string]cacheEntry
}

// cacheEntry is a result and when this replica stops reusing it: the
// probe's time plus the TTL, or, for a result from the shared cache, what
// that cache said (so replicas' clocks need not agree).
type cacheEntry struct {
	r     Live
	until time.Time
}

// NewCache returns a live prober; shared may be nil.
func NewCache(client *http.Client, timeout time.Duration, now func() time.Time, shared Shared) *Cache {
	return &Cache{client: client, timeout: timeout, now: now, shared: shared, cache: map[string]cacheEntry{}}
}

// Probe returns a result for url at most LiveTTL old, probing when the
// cached one is older. Concurrent callers share one outbound request.
func (c *Cache) Probe(url string) Live {
	if r, ok := c.cached(url); ok {
		return r
	}
	v, _, _ := c.group.Do(url, func() (any, error) {
		if r, ok := c.cached(url); ok { // filled while we waited for the group
			return r, nil
		}
		if c.shared != nil {
			if r, until, ok := c.shared.Fetch(url, func() Live { return c.probeNow(url) }); ok {
				c.store(url, cacheEntry{r: r, until: until})
				return r, nil
			}
		}
		r := c.probeNow(url)
		c.store(url, cacheEntry{r: r, until: r.At.Add(LiveTTL)})
		return r, nil
	})
	return v.(Live)
}

// Fresh returns url's cached result while it may be reused, and false
// when it would be probed: no request is made.
func (c *Cache) Fresh(url string) (Live, bool) { return c.cached(url) }

// probeNow makes the outbound request.
func (c *Cache) probeNow(url string) Live {
	// Detached from the request: a client that hangs up must not cancel
	// the probe other callers are waiting on.
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	return Live{Probe: probe.Probe(ctx, c.client, url), At: c.now()}
}

func (c *Cache) store(url string, e cacheEntry) {
	c.mu.Lock()
	c.cache[url] = e
	c.mu.Unlock()
}

func (c *Cache) cached(url string) (Live, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.cache[url]
	return e.r, ok && c.now().Before(e.until)
}
