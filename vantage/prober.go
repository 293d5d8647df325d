package vantage

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/rs/zerolog"
)

// Prober probes every tracked API host from one vantage on a schedule and
// writes what it saw (serve --vantage).
type Prober struct {
	// Name is the vantage's name (ValidName).
	Name string
	// URLs returns the probe URLs to probe this cycle: those of the catalog
	// of the snapshot served, which is the builder's.
	URLs func() []string
	// Probe probes one URL: the server's live-probe cache, which coalesces
	// the requests for one URL (a /check's and a cycle's) into one, through
	// the outbound client's dial guard and User-Agent.
	Probe func(url string) (api.ProbeSource, time.Time)
	// Write stores a cycle's report (Write, through the server's Redis).
	Write func(ctx context.Context, r Report) error
	// Every is the time between cycles, each jittered by up to a tenth
	// either way so that replicas started together do not probe together.
	Every time.Duration
	Now   func() time.Time
	Log   zerolog.Logger
}

// parallel bounds the probes in flight at once.
const parallel = 8

// Cycle probes every URL once, at most parallel at a time.
func (p Prober) Cycle() Report {
	urls := slices.Compact(slices.Sorted(slices.Values(p.URLs())))
	r := Report{Name: p.Name, At: p.Now().UTC(), FreshSeconds: int(Fresh(p.Every).Seconds()), Results: make(map[string]Result, len(urls))}
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		sem = make(chan struct{}, parallel)
	)
	for _, u := range urls {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			pr, at := p.Probe(u)
			res := Result{State: api.ProbeFailed, At: at.UTC()}
			if pr.State == api.ProbeOK {
				res.State, res.LatencyMs = api.ProbeOK, pr.LatencyMs
			}
			mu.Lock()
			r.Results[u] = res
			mu.Unlock()
		})
	}
	wg.Wait()
	return r
}

// Run probes and writes every Every (jittered) until ctx ends. A write
// that fails is logged and the next cycle writes again: a vantage that
// cannot reach Redis is, for the build, one that stopped reporting.
func (p Prober) Run(ctx context.Context) {
	for {
		r := p.Cycle()
		if err := p.Write(ctx, r); err != nil && ctx.Err() == nil {
			p.Log.Warn().Err(err).Str("vantage", p.Name).Msg("vantage results not written to redis: the build will not count this vantage until a write succeeds")
		}
		t := time.NewTimer(jitter(p.Every))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// jitter is every moved by up to a tenth either way.
func jitter(every time.Duration) time.Duration {
	tenth := int64(every / 10)
	if tenth <= 0 {
		return every
	}
	return every - time.Duration(tenth) + time.Duration(rand.Int64N(2*tenth+1))
}
