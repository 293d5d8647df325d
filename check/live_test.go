package check

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
)

// testClock is a clock the test moves.
type testClock struct{ ns atomic.Int64 }

func (c *testClock) Now() time.Time      { return time.Unix(0, c.ns.Load()).UTC() }
func (c *testClock) Set(t time.Time)     { c.ns.Store(t.UnixNano()) }
func (c *testClock) Add(d time.Duration) { c.ns.Add(int64(d)) }

// countingAPI is a loopback API host that answers 401, as a real one does
// to our keyless probe, and counts the probes.
func countingAPI(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(api.Close)
	return api, &hits
}

// TestCacheCoalescesAndExpires: any number of concurrent callers cause one
// probe, the result is reused for LiveTTL and no longer.
func TestCacheCoalescesAndExpires(t *testing.T) {
	t.Parallel()
	apiServer, hits := countingAPI(t)
	clock := &testClock{}
	clock.Set(genTime)
	c := NewCache(apiServer.Client(), time.Second, clock.Now, nil)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if r := c.Probe(apiServer.URL); r.Probe.State != api.ProbeOK || r.Probe.HTTPStatus != http.StatusUnauthorized {
				t.Errorf("probe %+v", r.Probe)
			}
		})
	}
	wg.Wait()
	for _, step := range []struct {
		after time.Duration
		hits  int64
	}{{0, 1}, {LiveTTL - time.Second, 1}, {2 * time.Second, 2}, {time.Second, 2}} {
		clock.Add(step.after)
		c.Probe(apiServer.URL)
		if n := hits.Load(); n != step.hits {
			t.Fatalf("%v later: %d probes, want %d", step.after, n, step.hits)
		}
	}
	// Fresh reads what is held, for as long as Probe reuses it, and never
	// probes.
	if r, ok := c.Fresh(apiServer.URL); !ok || r.Probe.HTTPStatus != http.StatusUnauthorized {
		t.Fatalf("Fresh just after a probe: %+v %v", r, ok)
	}
	clock.Add(LiveTTL)
	if _, ok := c.Fresh(apiServer.URL); ok || hits.Load() != 2 {
		t.Fatalf("Fresh past the TTL: held %v after %d probes, want not held after 2", ok, hits.Load())
	}
	if _, ok := c.Fresh("http://never.probed.example/"); ok {
		t.Fatal("Fresh holds a URL never probed")
	}
}

// fakeShared is a shared cache holding one result, or refusing (down).
type fakeShared struct {
	down   bool
	stored Live
	until  time.Time
	asked  int
}

func (f *fakeShared) Fetch(url string, probe func() Live) (Live, time.Time, bool) {
	f.asked++
	if f.down {
		return Live{}, time.Time{}, false
	}
	if f.until.IsZero() {
		f.stored = probe()
		f.until = f.stored.At.Add(LiveTTL)
	}
	return f.stored, f.until, true
}

// TestCacheAsksTheSharedCache: a result another replica stored is used for
// as long as the shared cache says, without a probe of our own; a shared
// cache that is down leaves the probing to us.
func TestCacheAsksTheSharedCache(t *testing.T) {
	t.Parallel()
	apiServer, hits := countingAPI(t)
	clock := &testClock{}
	clock.Set(genTime)
	latency := 42.0
	theirs := Live{Probe: api.ProbeSource{State: api.ProbeOK, LatencyMs: &latency}, At: genTime.Add(-10 * time.Second)}
	shared := &fakeShared{stored: theirs, until: genTime.Add(5 * time.Second)}
	c := NewCache(apiServer.Client(), time.Second, clock.Now, shared)
	if r := c.Probe(apiServer.URL); r.Probe.LatencyMs == nil || *r.Probe.LatencyMs != latency || hits.Load() != 0 {
		t.Fatalf("got %+v after %d probes, want the shared result and none", r, hits.Load())
	}
	clock.Add(4 * time.Second)
	c.Probe(apiServer.URL)
	if shared.asked != 1 {
		t.Fatalf("asked the shared cache %d times within its time, want 1", shared.asked)
	}
	shared.down = true
	clock.Add(2 * time.Second)
	if r := c.Probe(apiServer.URL); r.Probe.HTTPStatus != http.StatusUnauthorized || hits.Load() != 1 || shared.asked != 2 {
		t.Fatalf("shared cache down: got %+v, %d probes, asked %d times", r, hits.Load(), shared.asked)
	}
}
