package vantage

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/serve/shared/redistest"
	"github.com/redis/go-redis/v9"
)

func TestValidName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"eu-west-1", true}, {"fra", true}, {"a", true}, {"us-east", true},
		{strings.Repeat("a", 32), true},
		{"", false}, {strings.Repeat("a", 33), false}, {"EU", false}, {"-fra", false}, {"fra-", false},
		{"eu west", false}, {"eu:west", false}, {"eu_west", false}, {"é", false}, {"a*", false},
	} {
		if err := ValidName(tc.name); (err == nil) != tc.ok {
			t.Errorf("ValidName(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

func realRedis(t *testing.T) *redis.Client {
	t.Helper()
	srv := redistest.StartReal(t)
	opt, err := redis.ParseURL(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	opt.DisableIdentity = true
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return c
}

func ms(v float64) *float64 { return &v }

// What one vantage writes, another process reads: fresh reports come back
// whole; an expired one and one of a vantage silent for over an hour do
// not; one this program could not have written is named, not used.
func TestWriteRead(t *testing.T) {
	t.Parallel()
	rdb := realRedis(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	url := "https://api.example.com/v1/models"
	a := Report{Name: "a", At: now, FreshSeconds: 150, Results: map[string]Result{
		url: {State: api.ProbeOK, LatencyMs: ms(42.5), At: now},
	}}
	b := Report{Name: "b", At: now, FreshSeconds: 150, Results: map[string]Result{
		url: {State: api.ProbeFailed, At: now},
	}}
	for _, r := range []Report{a, b} {
		if err := Write(ctx, rdb, r); err != nil {
			t.Fatal(err)
		}
	}
	// c wrote a report that expires at once (Redis's expiry, 1 s).
	if err := Write(ctx, rdb, Report{Name: "c", At: now, FreshSeconds: 1, Results: map[string]Result{}}); err != nil {
		t.Fatal(err)
	}
	// d's report lies: a latency no probe makes.
	bad, _ := json.Marshal(Report{Name: "d", At: now, FreshSeconds: 150, Results: map[string]Result{url: {State: api.ProbeOK, LatencyMs: ms(-1), At: now}}})
	rdb.Set(ctx, KeyPrefix+"d", bad, time.Minute)
	rdb.ZAdd(ctx, IndexKey, redis.Z{Score: float64(now.Unix()), Member: "d"})
	// e is under another's name.
	other, _ := json.Marshal(Report{Name: "a", At: now, FreshSeconds: 150})
	rdb.Set(ctx, KeyPrefix+"e", other, time.Minute)
	rdb.ZAdd(ctx, IndexKey, redis.Z{Score: float64(now.Unix()), Member: "e"})
	time.Sleep(1100 * time.Millisecond)

	got, problems, err := Read(ctx, rdb, now)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]Report{}
	for _, r := range got {
		names[r.Name] = r
	}
	if len(got) != 2 || names["a"].Results[url].State != api.ProbeOK || *names["a"].Results[url].LatencyMs != 42.5 ||
		names["b"].Results[url].State != api.ProbeFailed {
		t.Errorf("read %+v, want a (ok, 42.5 ms) and b (failed) only", got)
	}
	if len(problems) != 2 || !strings.Contains(strings.Join(problems, " "), "latency") || !strings.Contains(strings.Join(problems, " "), "another vantage's name") {
		t.Errorf("problems %q, want d's latency and e's name", problems)
	}
	// An hour on, the silent vantages leave the index.
	later := now.Add(forgetAfter + time.Minute)
	if err := Write(ctx, rdb, Report{Name: "a", At: later, FreshSeconds: 150, Results: map[string]Result{}}); err != nil {
		t.Fatal(err)
	}
	if n := rdb.ZCard(ctx, IndexKey).Val(); n != 1 {
		t.Errorf("index holds %d vantages an hour on, want 1 (a)", n)
	}
}

// Read reads no report of a vantage that wrote over an hour ago, even if
// its key were still there.
func TestReadIgnoresSilentVantages(t *testing.T) {
	t.Parallel()
	rdb := realRedis(t)
	ctx := context.Background()
	now := time.Now().UTC()
	old := now.Add(-2 * time.Hour)
	if err := Write(ctx, rdb, Report{Name: "old", At: old, FreshSeconds: 600, Results: map[string]Result{}}); err != nil {
		t.Fatal(err)
	}
	got, _, err := Read(ctx, rdb, now)
	if err != nil || len(got) != 0 {
		t.Fatalf("Read = %+v, %v; want nothing", got, err)
	}
}

// A cycle probes each URL once, however often the catalog names it, keeps
// only counts and latencies, and Run writes a report each cycle.
func TestProberCycle(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var probes atomic.Int32
	p := Prober{
		Name: "b",
		URLs: func() []string {
			return []string{"https://up.example/", "https://down.example/", "https://up.example/"}
		},
		Probe: func(url string) (api.ProbeSource, time.Time) {
			probes.Add(1)
			if strings.Contains(url, "down") {
				return api.ProbeSource{State: api.ProbeFailed, Error: "dial tcp 10.0.0.1:443: connection refused"}, now
			}
			return api.ProbeSource{State: api.ProbeOK, LatencyMs: ms(12), HTTPStatus: 401}, now
		},
		Every: time.Minute,
		Now:   func() time.Time { return now },
	}
	r := p.Cycle()
	if probes.Load() != 2 {
		t.Errorf("%d probes, want 2 (one per URL)", probes.Load())
	}
	if r.Name != "b" || r.FreshSeconds != 150 || r.Results["https://up.example/"].State != api.ProbeOK ||
		r.Results["https://down.example/"].State != api.ProbeFailed || r.Results["https://down.example/"].LatencyMs != nil {
		t.Errorf("report %+v", r)
	}
	body, _ := json.Marshal(r)
	if strings.Contains(string(body), "refused") || strings.Contains(string(body), "10.0.0.1") || strings.Contains(string(body), "401") {
		t.Errorf("the report carries more than counts and latencies: %s", body)
	}

	ctx, cancel := context.WithCancel(context.Background())
	written := make(chan Report, 1)
	p.Write = func(_ context.Context, r Report) error { written <- r; cancel(); return nil }
	p.Run(ctx)
	if r := <-written; r.Name != "b" {
		t.Errorf("Run wrote %+v", r)
	}
}

func TestJitter(t *testing.T) {
	t.Parallel()
	seen := map[bool]bool{}
	for range 200 {
		d := jitter(time.Minute)
		if d < 54*time.Second || d > 66*time.Second {
			t.Fatalf("jitter(1m) = %v, want within a tenth", d)
		}
		seen[d < time.Minute] = true
	}
	if len(seen) != 2 {
		t.Error("jitter never moved both ways")
	}
}
