package serve

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/aistatus/aistatus/probe"
	"github.com/aistatus/aistatus/snapshot"
	"golang.org/x/sync/singleflight"
)

// liveProbeTTL is how long a live probe result is reused: any amount of
// /check traffic causes at most one outbound probe per service per TTL.
const liveProbeTTL = 30 * time.Second

// liveProber runs /check's live latency probes, coalesced and cached per
// probe URL. It only ever probes URLs from the catalog, never user input.
type liveProber struct {
	client  *http.Client
	timeout time.Duration
	now     func() time.Time
	group   singleflight.Group

	mu    sync.Mutex
	cache map[string]liveResult
}

type liveResult struct {
	probe snapshot.ProbeSource
	at    time.Time
}

func newLiveProber(client *http.Client, timeout time.Duration, now func() time.Time) *liveProber {
	return &liveProber{client: client, timeout: timeout, now: now, cache: map[string]liveResult{}}
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
		// Detached from the request: a client that hangs up must not cancel
		// the probe other callers are waiting on.
		ctx, cancel := context.WithTimeout(context.Background(), p.timeout)
		defer cancel()
		r := liveResult{probe: probe.Probe(ctx, p.client, url), at: p.now()}
		p.mu.Lock()
		p.cache[url] = r
		p.mu.Unlock()
		return r, nil
	})
	return v.(liveResult)
}

func (p *liveProber) cached(url string) (liveResult, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.cache[url]
	return r, ok && p.now().Sub(r.at) < liveProbeTTL
}
