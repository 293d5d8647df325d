package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/serve/limits"
	"github.com/aistatus/aistatus/serve/shared"
	"github.com/aistatus/aistatus/serve/shared/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"
)

// testRedis is a redis-server of the test's own (redistest.Real).
type testRedis struct {
	*redistest.Real
	t testing.TB
}

// startRedis starts a redis-server for the test, or skips the test when
// there is none.
func startRedis(t testing.TB) *testRedis {
	t.Helper()
	return &testRedis{Real: redistest.StartReal(t), t: t}
}

func (r *testRedis) url() string { return r.URL() }
func (r *testRedis) start()      { r.Start() }
func (r *testRedis) stop()       { r.Stop() }

// client returns a client as `serve --redis` makes it, closed at test end.
func (r *testRedis) client() *redis.Client {
	r.t.Helper()
	c, err := shared.NewRedisClient(r.url())
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { c.Close() })
	return c
}

// replicas returns n servers of one snapshot and one fake API host, sharing
// rdb, each with its own clock, limiter fallback and probe cache.
func replicas(t *testing.T, n, rateLimit int, rdb *redis.Client, log zerolog.Logger) []*testServer {
	t.Helper()
	first := newTestServer(t, rateLimit)
	out := make([]*testServer, n)
	for i := range out {
		ts := *first
		ts.clock = newTestClock(first.clock.Now())
		ts.opts.Now, ts.opts.Redis, ts.opts.Log = ts.clock.Now, rdb, log
		ts.Server = New(ts.opts)
		if ok, err := ts.Store().Reload(); !ok || err != nil {
			t.Fatalf("reload: %v %v", ok, err)
		}
		out[i] = &ts
	}
	return out
}

// limiterBackends are the limits.Limiter implementations the limiter tests run
// against: the local GCRA on a fake clock, and the Redis one (real time:
// Redis's own clock decides).
type limiterBackend struct {
	name string
	// limiter returns a limiter of limit requests a minute.
	limiter func(t *testing.T, limit int) limits.Limiter
	// advance lets d pass for the limiter.
	advance func(d time.Duration)
}

func limiterBackends(t *testing.T) []limiterBackend {
	clock := newTestClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	return []limiterBackend{
		{
			name: "local",
			limiter: func(t *testing.T, limit int) limits.Limiter {
				return limits.NewRateLimiter(limit, time.Minute, 1000, clock.Now)
			},
			advance: func(d time.Duration) { clock.Set(clock.Now().Add(d)) },
		},
		{
			name: "redis",
			limiter: func(t *testing.T, limit int) limits.Limiter {
				rdb := startRedis(t).client()
				conn := shared.NewRedis(rdb, zerolog.Nop(), time.Now)
				if !conn.Status().OK {
					t.Fatal("redis not reachable")
				}
				return limits.NewRedisLimiter(conn, limits.NewRateLimiter(limit, time.Minute, 1000, time.Now), limit, time.Minute)
			},
			advance: time.Sleep,
		},
	}
}

// near reports whether got is want within the time a test's requests to a
// local Redis take.
func near(got, want time.Duration) bool {
	return got <= want && got > want-500*time.Millisecond
}

// TestLimiterBackends: both limiters make the same decisions with the same
// figures — burst, denial, Retry-After, reset, independent keys, refill.
func TestLimiterBackends(t *testing.T) {
	t.Parallel()
	for _, b := range limiterBackends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			l := b.limiter(t, 30)
			key := netip.MustParseAddr("192.0.2.1")
			for i := range 30 {
				d := l.Decide(ctx, key)
				if !d.Allowed || d.Limit != 30 || d.Window != time.Minute || d.Remaining != 29-i ||
					!near(d.Reset, time.Duration(i+1)*2*time.Second) || d.RetryAfter != 0 {
					t.Fatalf("request %d: %+v", i+1, d)
				}
			}
			for i := range 3 {
				// Denied requests do not push the allowance further away.
				d := l.Decide(ctx, key)
				if d.Allowed || d.Remaining != 0 || !near(d.Reset, time.Minute) || !near(d.RetryAfter, 2*time.Second) {
					t.Fatalf("denied request %d: %+v", i+1, d)
				}
			}
			if d := l.Decide(ctx, netip.MustParseAddr("192.0.2.2")); !d.Allowed || d.Remaining != 29 {
				t.Fatalf("another key: %+v", d)
			}
			b.advance(2 * time.Second)
			if d := l.Decide(ctx, key); !d.Allowed || d.Remaining != 0 {
				t.Fatalf("after one interval: %+v", d)
			}
			if d := l.Decide(ctx, key); d.Allowed {
				t.Fatalf("second request after one interval: %+v", d)
			}
		})
	}
}

// TestSharedBudgetAcrossReplicas: one client has 30 requests a minute across
// three replicas, not 90; the 31st, whichever replica gets it, is a 429 with
// the same headers as a single server's.
func TestSharedBudgetAcrossReplicas(t *testing.T) {
	t.Parallel()
	rdb := startRedis(t).client()
	rs := replicas(t, 3, 30, rdb, zerolog.Nop())
	start := time.Now()
	for i := range 30 {
		resp := rs[i%3].do(t, http.MethodGet, "/api/v1/status", nil)
		if resp.StatusCode != 200 {
			t.Fatalf("request %d (replica %d): %d", i+1, i%3, resp.StatusCode)
		}
		if got, want := resp.Header.Get("RateLimit"), fmt.Sprintf(`"free";r=%d;t=`, 29-i); !strings.HasPrefix(got, want) {
			t.Fatalf("request %d: RateLimit %q, want %s…", i+1, got, want)
		}
		if got := resp.Header.Get("RateLimit-Policy"); got != `"free";q=30;w=60` {
			t.Fatalf("RateLimit-Policy %q", got)
		}
	}
	for i, ts := range rs {
		resp := ts.do(t, http.MethodGet, "/api/v1/services/openai", nil)
		if resp.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("request %d (replica %d): %d, want 429", 31+i, i, resp.StatusCode)
		}
		// Redis's own clock decides, and it runs while the requests are
		// made: a window starts at most 60 s away, less the seconds
		// already gone, and the next token (one every 2 s) is at most 2 s
		// away.
		gone := int(math.Ceil(time.Since(start).Seconds()))
		var reset int
		if _, err := fmt.Sscanf(resp.Header.Get("RateLimit"), `"free";r=0;t=%d`, &reset); err != nil || reset > 60 || reset < 60-gone {
			t.Fatalf("429 RateLimit %q after %d s: want r=0 and t in [%d, 60]", resp.Header.Get("RateLimit"), gone, 60-gone)
		}
		if ra := resp.Header.Get("Retry-After"); (ra != "1" && ra != "2") || resp.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("429 headers: %v", resp.Header)
		}
		decodeProblem(t, resp)
		if st := ts.SharedStatus(); st.String() != "redis ok" || !st.OK || !st.Redis {
			t.Fatalf("replica %d: shared state %+v", i, st)
		}
	}
}

// TestSharedProbeAcrossReplicas: any amount of /check traffic on three
// replicas makes one outbound probe per service, and a replica started later
// reuses it too.
func TestSharedProbeAcrossReplicas(t *testing.T) {
	t.Parallel()
	rdb := startRedis(t).client()
	rs := replicas(t, 3, 0, rdb, zerolog.Nop())
	queries := []string{"anthropic", "openai", "claude", "api.openai.com"} // two services
	var wg sync.WaitGroup
	for _, ts := range rs {
		for i := range 20 {
			wg.Go(func() {
				if doc := checkDoc(t, ts, queries[i%len(queries)]); doc.LatencyMs == nil {
					t.Error("no live latency")
				}
			})
		}
	}
	wg.Wait()
	api := rs[0].api
	if n := api.hits.Load(); n != 2 {
		t.Fatalf("60 concurrent checks of 2 services on 3 replicas made %d probes, want 2", n)
	}
	late := *rs[0]
	late.Server = New(rs[0].opts)
	if ok, err := late.Store().Reload(); !ok || err != nil {
		t.Fatalf("reload: %v %v", ok, err)
	}
	for _, ts := range append(rs, &late) {
		if doc := checkDoc(t, ts, "anthropic"); doc.LatencyMs == nil {
			t.Fatal("no live latency")
		}
	}
	if n := api.hits.Load(); n != 2 {
		t.Fatalf("checks within 30 s probed again (%d probes)", n)
	}
}

// TestRedisOutage: with Redis killed mid-run, replicas answer every request
// from their local limiter and cache, report "fallback local" and log the
// change once; when Redis is back they share again.
func TestRedisOutage(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client()
	var logs syncBuffer
	rs := replicas(t, 2, 30, rdb, zerolog.New(&logs))
	for i := range 10 {
		if resp := rs[i%2].do(t, http.MethodGet, "/api/v1/status", nil); resp.StatusCode != 200 {
			t.Fatalf("before the outage, request %d: %d", i+1, resp.StatusCode)
		}
	}

	srv.stop()
	for i := range 20 {
		ts := rs[i%2]
		if resp := ts.do(t, http.MethodGet, "/api/v1/status", nil); resp.StatusCode != 200 {
			t.Fatalf("during the outage, request %d: %d", i+1, resp.StatusCode)
		}
		if doc := checkDoc(t, ts, "anthropic"); doc.LatencyMs == nil {
			t.Fatal("during the outage, /check has no live latency")
		}
	}
	for i, ts := range rs {
		if st := ts.SharedStatus(); st.String() != "fallback local" || st.OK {
			t.Fatalf("replica %d during the outage: %+v", i, st)
		}
	}
	if n := strings.Count(logs.String(), "redis failed"); n != 2 {
		t.Fatalf("the outage was logged %d times by 2 replicas, want once each:\n%s", n, logs.String())
	}
	srv.start()
	deadline := time.Now().Add(10 * time.Second)
	for _, ts := range rs {
		for ts.SharedStatus().String() != "redis ok" {
			if time.Now().After(deadline) {
				t.Fatalf("no recovery: %+v", ts.SharedStatus())
			}
			// The replicas try Redis again at most once a second of their clock.
			ts.clock.Set(ts.clock.Now().Add(2 * time.Second))
			if resp := ts.do(t, http.MethodGet, "/api/v1/status", nil); resp.StatusCode != 200 {
				t.Fatalf("during recovery: %d", resp.StatusCode)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if n := strings.Count(logs.String(), "redis answers again"); n != 2 {
		t.Fatalf("the recovery was logged %d times by 2 replicas, want once each:\n%s", n, logs.String())
	}
	// Shared again: the restarted Redis is empty, so a new client has 30
	// in total across both replicas.
	for i := range 31 {
		req, _ := http.NewRequest(http.MethodGet, "/api/v1/status", nil)
		req.RemoteAddr = "198.51.100.9:1"
		rec := &statusCapture{header: http.Header{}}
		rs[i%2].Handler().ServeHTTP(rec, req)
		want := 200
		if i == 30 {
			want = http.StatusTooManyRequests
		}
		if rec.code != want {
			t.Fatalf("after recovery, request %d: %d, want %d", i+1, rec.code, want)
		}
	}
}

// statusCapture is a ResponseWriter keeping only the status.
type statusCapture struct {
	header http.Header
	code   int
}

func (c *statusCapture) Header() http.Header { return c.header }
func (c *statusCapture) Write(b []byte) (int, error) {
	if c.code == 0 {
		c.code = 200
	}
	return len(b), nil
}
func (c *statusCapture) WriteHeader(code int) {
	if c.code == 0 {
		c.code = code
	}
}

// useRedis points ts at a redis-server of the test's own, for the server
// tests that run against both limiters.
func useRedis(t *testing.T, ts *testServer) {
	t.Helper()
	ts.opts.Redis = startRedis(t).client()
	ts.Server = New(ts.opts)
	if ok, err := ts.Store().Reload(); !ok || err != nil {
		t.Fatalf("reload: %v %v", ok, err)
	}
	if st := ts.SharedStatus(); !st.OK {
		t.Fatalf("shared state %+v", st)
	}
}

// TestSharedProbeLockHolderGone: a replica that finds the probe lock taken
// but never sees a result (its holder died) probes itself after a little
// longer than a probe can take, instead of failing /check.
func TestSharedProbeLockHolderGone(t *testing.T) {
	t.Parallel()
	rdb := startRedis(t).client()
	ts := replicas(t, 1, 0, rdb, zerolog.Nop())[0]
	ts.opts.ProbeTimeout = 200 * time.Millisecond
	ts.Server = New(ts.opts)
	ts.Store().Reload()
	var url string
	for _, svc := range ts.cat.Services {
		if svc.Slug == "anthropic" {
			url = svc.ProbeURL
		}
	}
	if err := rdb.Set(context.Background(), shared.RedisKeyPrefix+"probe:"+url+":lock", "1", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if doc := checkDoc(t, ts, "anthropic"); doc.LatencyMs == nil {
		t.Fatal("no live latency")
	}
	if waited := time.Since(start); waited < 600*time.Millisecond {
		t.Errorf("probed after %v, before the holder's probe could have finished", waited)
	}
	if n := ts.api.hits.Load(); n != 1 {
		t.Fatalf("%d probes, want 1", n)
	}
}

// TestLyingRedis: whatever Redis answers the rate-limit script and the
// probe cache, no request fails, no RateLimit figure is out of range and
// /check has its live probe. A reply that is not the
// script's (a status, negative figures, a length the process cannot
// allocate) counts as Redis failing: the replica
// logs that once and limits with its own limiter, so a client gets its 30
// and then 429s, as from a single server.
func TestLyingRedis(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, reply string }{
		{"status", "+OK\r\n"},
		{"negative figures", "*4\r\n:1\r\n:-5\r\n$2\r\n-1\r\n$2\r\n-9\r\n"},
		{"a 100 GB string", "$107374182400\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rdb, err := shared.NewRedisClient(redistest.Start(t, redistest.Replying(tc.reply)).URL())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { rdb.Close() })
			var logs syncBuffer
			ts := replicas(t, 1, 30, rdb, zerolog.New(&logs))[0]
			for i := range 45 {
				target := "/api/v1/status"
				if i == 0 {
					target = "/api/v1/check?q=anthropic"
				}
				resp := ts.do(t, http.MethodGet, target, nil)
				want, remaining := 200, 29-i
				if i >= 30 {
					want, remaining = http.StatusTooManyRequests, 0
				}
				if resp.StatusCode != want {
					t.Fatalf("request %d: %d, want %d", i+1, resp.StatusCode, want)
				}
				if got := resp.Header.Get("RateLimit"); !strings.HasPrefix(got, fmt.Sprintf(`"free";r=%d;t=`, remaining)) || strings.Contains(got, "-") {
					t.Fatalf("request %d: RateLimit %q", i+1, got)
				}
				if i == 0 {
					var doc api.CheckDoc
					if err := json.Unmarshal(body(t, resp), &doc); err != nil || doc.LatencyMs == nil {
						t.Fatalf("/check without a live probe (%v): %+v", err, doc)
					}
				}
			}
			if st := ts.SharedStatus(); st.String() != "fallback local" {
				t.Errorf("shared state %v", st)
			}
			if n := strings.Count(logs.String(), "redis failed"); n != 1 {
				t.Errorf("logged %d times, want once:\n%s", n, logs.String())
			}
		})
	}
}

// SharedStatus reports whether the rate limit and probe cache are currently
// shared through Redis or kept locally.
func (s *Server) SharedStatus() shared.Status {
	if s.shared == nil {
		return shared.Status{}
	}
	return s.shared.Status()
}
