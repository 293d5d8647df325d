package vantage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/serve/shared/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"
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

// testKey is the tests' builds' key, each replica's own testKey.For(its
// name); otherKey a key they do not hold.
var (
	testKey  = mustKey("test-vantage-key-0123456789abcdef-shared")
	otherKey = mustKey("not-the-shared-key-0123456789abcdef-other")
)

func mustKey(s string) Key {
	k, err := ParseKey(s)
	if err != nil {
		panic(err)
	}
	return k
}

// put stores body under name's key and names it in the index at score,
// as any writer to Redis can.
func put(t *testing.T, rdb *redis.Client, name string, body []byte, score time.Time) {
	t.Helper()
	ctx := context.Background()
	if err := rdb.Set(ctx, KeyPrefix+name, body, time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.ZAdd(ctx, IndexKey, redis.Z{Score: float64(score.Unix()), Member: name}).Err(); err != nil {
		t.Fatal(err)
	}
}

// signedWith is r as Write stores it, signed with key.
func signedWith(key Key, r Report) []byte {
	report, _ := json.Marshal(r)
	body, _ := json.Marshal(signed{Sig: key.sign(report), Report: report})
	return body
}

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
		if err := Write(ctx, rdb, testKey.For(r.Name), r); err != nil {
			t.Fatal(err)
		}
	}
	// c wrote a report that expires at once (Redis's expiry, 1 s).
	if err := Write(ctx, rdb, testKey.For("c"), Report{Name: "c", At: now, FreshSeconds: 1, Results: map[string]Result{}}); err != nil {
		t.Fatal(err)
	}
	// d's report lies: a latency no probe makes.
	put(t, rdb, "d", signedWith(testKey.For("d"), Report{Name: "d", At: now, FreshSeconds: 150, Results: map[string]Result{url: {State: api.ProbeOK, LatencyMs: ms(-1), At: now}}}), now)
	// e, with its own key, writes a report under another's name.
	put(t, rdb, "e", signedWith(testKey.For("e"), Report{Name: "a", At: now, FreshSeconds: 150}), now)
	time.Sleep(1100 * time.Millisecond)

	got, err := Read(ctx, rdb, testKey, now)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]Report{}
	for _, r := range got.Reports {
		names[r.Name] = r
	}
	if len(got.Reports) != 2 || names["a"].Results[url].State != api.ProbeOK || *names["a"].Results[url].LatencyMs != 42.5 ||
		names["b"].Results[url].State != api.ProbeFailed {
		t.Errorf("read %+v, want a (ok, 42.5 ms) and b (failed) only", got.Reports)
	}
	if got.Dropped != (api.VantageDropped{Invalid: 2}) || len(got.Bad) != 2 || !strings.Contains(strings.Join(got.Bad, " "), "latency") ||
		!strings.Contains(strings.Join(got.Bad, " "), "another vantage's name") {
		t.Errorf("dropped %+v, bad %q; want d's latency and e's name", got.Dropped, got.Bad)
	}
	// An hour on, the silent vantages leave the index.
	later := now.Add(forgetAfter + time.Minute)
	if err := Write(ctx, rdb, testKey.For("a"), Report{Name: "a", At: later, FreshSeconds: 150, Results: map[string]Result{}}); err != nil {
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
	if err := Write(ctx, rdb, testKey.For("old"), Report{Name: "old", At: old, FreshSeconds: 600, Results: map[string]Result{}}); err != nil {
		t.Fatal(err)
	}
	got, err := Read(ctx, rdb, testKey, now)
	if err != nil || len(got.Reports) != 0 {
		t.Fatalf("Read = %+v, %v; want nothing", got, err)
	}
}

// Only a report signed with its vantage's own key (the build's key's For
// its name) is believed: one written without a key (as before reports
// were signed), signed with another key, with another vantage's own key,
// with the build's key itself, or signed and then changed is dropped and
// counted, however fresh and well formed. A fake "ok" is how one writer to Redis took an outage
// off the page.
func TestReadBelievesOnlySignedReports(t *testing.T) {
	t.Parallel()
	rdb := realRedis(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	url := "https://api.mistral.example/v1/models"
	report := func(name, state string) Report {
		return Report{Name: name, At: now, FreshSeconds: 150, Results: map[string]Result{url: {State: state, At: now}}}
	}
	if err := Write(ctx, rdb, testKey.For("real"), report("real", api.ProbeFailed)); err != nil {
		t.Fatal(err)
	}
	plain, _ := json.Marshal(report("plain", api.ProbeOK))
	put(t, rdb, "plain", plain, now)
	nosig, _ := json.Marshal(report("nosig", api.ProbeOK))
	put(t, rdb, "nosig", []byte(`{"sig":"","report":`+string(nosig)+`}`), now)
	put(t, rdb, "otherkey", signedWith(otherKey, report("otherkey", api.ProbeOK)), now)
	// A real report's signature over a report changed to "ok".
	failed, _ := json.Marshal(report("changed", api.ProbeFailed))
	changed, _ := json.Marshal(report("changed", api.ProbeOK))
	put(t, rdb, "changed", []byte(`{"sig":"`+testKey.For("changed").sign(failed)+`","report":`+string(changed)+`}`), now)
	badhex, _ := json.Marshal(report("badhex", api.ProbeOK))
	put(t, rdb, "badhex", []byte(`{"sig":"zz","report":`+string(badhex)+`}`), now)
	// A vantage's own key signing as another: "real"'s holder writes an
	// "ok" in the name of "ally".
	put(t, rdb, "ally", signedWith(testKey.For("real"), report("ally", api.ProbeOK)), now)
	// A replica given the build's own key, which could sign as anyone.
	put(t, rdb, "shared", signedWith(testKey, report("shared", api.ProbeOK)), now)

	got, err := Read(ctx, rdb, testKey, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Reports) != 1 || got.Reports[0].Name != "real" {
		t.Errorf("believed %+v, want the real report only", got.Reports)
	}
	if want := (api.VantageDropped{Unsigned: 2, BadSignature: 5}); got.Dropped != want {
		t.Errorf("dropped %+v, want %+v", got.Dropped, want)
	}
	if len(got.Bad) != 1 || !strings.Contains(got.Bad[0], `"shared"`) || !strings.Contains(got.Bad[0], "the build's own key") {
		t.Errorf("bad %q, want the report signed with the build's key named, and why", got.Bad)
	}
}

// A report, or a result in it, dated ahead of the reader's clock by more
// than maxSkew is dropped and counted, even signed; one a few seconds
// ahead (clocks differ) is read.
func TestReadDropsReportsFromTheFuture(t *testing.T) {
	t.Parallel()
	rdb := realRedis(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	url := "https://api.example.com/v1/models"
	for name, at := range map[string][2]time.Time{
		"late-clock":    {now.Add(5 * time.Second), now.Add(5 * time.Second)},
		"report-ahead":  {now.Add(maxSkew + 2*time.Second), now},
		"result-ahead":  {now, now.Add(maxSkew + 2*time.Second)},
		"both-far-away": {now.Add(24 * time.Hour), now.Add(24 * time.Hour)},
	} {
		put(t, rdb, name, signedWith(testKey.For(name), Report{Name: name, At: at[0], FreshSeconds: 150,
			Results: map[string]Result{url: {State: api.ProbeOK, At: at[1]}}}), now)
	}
	got, err := Read(ctx, rdb, testKey, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Reports) != 1 || got.Reports[0].Name != "late-clock" || got.Dropped != (api.VantageDropped{Future: 3}) {
		t.Errorf("read %+v, dropped %+v; want late-clock only, 3 from the future", got.Reports, got.Dropped)
	}
}

// MaxVantages entries scored in the future do not push the vantages that
// report out of the read: the index is read by score up to now (and
// maxSkew), the entries ahead are counted, and the next Write trims them.
func TestReadIgnoresIndexEntriesScoredAhead(t *testing.T) {
	t.Parallel()
	rdb := realRedis(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	url := "https://api.example.com/v1/models"
	for _, name := range []string{"a", "b"} {
		if err := Write(ctx, rdb, testKey.For(name), Report{Name: name, At: now, FreshSeconds: 150, Results: map[string]Result{url: {State: api.ProbeOK, At: now}}}); err != nil {
			t.Fatal(err)
		}
	}
	future := make([]redis.Z, MaxVantages)
	for i := range future {
		future[i] = redis.Z{Score: float64(now.Add(time.Duration(i+1) * time.Hour).Unix()), Member: fmt.Sprintf("ahead-%d", i)}
	}
	if err := rdb.ZAdd(ctx, IndexKey, future...).Err(); err != nil {
		t.Fatal(err)
	}
	got, err := Read(ctx, rdb, testKey, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Reports) != 2 || got.Dropped != (api.VantageDropped{Future: MaxVantages}) {
		t.Errorf("read %d reports, dropped %+v; want a and b, %d ahead", len(got.Reports), got.Dropped, MaxVantages)
	}
	if err := Write(ctx, rdb, testKey.For("a"), Report{Name: "a", At: now, FreshSeconds: 150, Results: map[string]Result{}}); err != nil {
		t.Fatal(err)
	}
	if n := rdb.ZCard(ctx, IndexKey).Val(); n != 2 {
		t.Errorf("index holds %d entries after a write, want 2 (a, b): the ones ahead trimmed", n)
	}
}

// Without a key nothing is written and nothing is read: a report nobody
// can check is worth nothing.
func TestNoKeyNoReports(t *testing.T) {
	t.Parallel()
	rdb := realRedis(t)
	ctx := context.Background()
	now := time.Now().UTC()
	r := Report{Name: "a", At: now, FreshSeconds: 150, Results: map[string]Result{}}
	if err := Write(ctx, rdb, Key{}, r); !errors.Is(err, ErrNoKey) {
		t.Errorf("Write without a key: %v, want ErrNoKey", err)
	}
	if n := rdb.DBSize(ctx).Val(); n != 0 {
		t.Errorf("Write without a key left %d keys", n)
	}
	if err := Write(ctx, rdb, testKey.For(r.Name), r); err != nil {
		t.Fatal(err)
	}
	if got, err := Read(ctx, rdb, Key{}, now); !errors.Is(err, ErrNoKey) || len(got.Reports) != 0 {
		t.Errorf("Read without a key: %+v, %v; want nothing, ErrNoKey", got, err)
	}
}

// The key is never shown: not by any fmt verb, not in JSON, not in a
// log line that carries it, not in ParseKey's error; nor is it in what
// Write stores.
func TestKeyNeverShown(t *testing.T) {
	t.Parallel()
	const secret = "s3cret-vantage-key-0123456789abcdefXYZ"
	k := mustKey(secret)
	hexed := fmt.Sprintf("%x", secret)
	var shown []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
		shown = append(shown, fmt.Sprintf(verb, k), fmt.Sprintf(verb, &k), fmt.Sprintf(verb, struct{ K Key }{k}))
	}
	j, _ := json.Marshal(map[string]any{"k": k, "p": &k})
	shown = append(shown, string(j))
	var logged bytes.Buffer
	log := zerolog.New(&logged)
	log.Info().Interface("k", k).Stringer("s", k).Any("a", k).Msg("x")
	shown = append(shown, logged.String())
	_, err := ParseKey(secret[:MinKeyBytes-1])
	if err == nil {
		t.Fatal("a short key was taken")
	}
	shown = append(shown, err.Error())
	rdb := realRedis(t)
	ctx := context.Background()
	if err := Write(ctx, rdb, k, Report{Name: "a", At: time.Now(), FreshSeconds: 150, Results: map[string]Result{}}); err != nil {
		t.Fatal(err)
	}
	shown = append(shown, rdb.Get(ctx, KeyPrefix+"a").Val())
	for _, s := range shown {
		if strings.Contains(s, secret[:MinKeyBytes-1]) || strings.Contains(strings.ToLower(s), hexed[:16]) {
			t.Errorf("the key shows in %q", s)
		}
	}
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	if k, err := ParseKey(""); err != nil || k.Set() {
		t.Errorf(`ParseKey("") = %v, %v; want no key`, k, err)
	}
	if _, err := ParseKey(strings.Repeat("k", MinKeyBytes-1)); err == nil || !strings.Contains(err.Error(), KeyEnv) {
		t.Errorf("a short key: %v, want an error naming %s", err, KeyEnv)
	}
	if k, err := ParseKey(strings.Repeat("k", MinKeyBytes)); err != nil || !k.Set() {
		t.Errorf("a key of %d bytes: %v, %v", MinKeyBytes, k, err)
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

// TestKeyFor: a vantage's own key is the same each time for its name,
// another for another name, never the build's, at least MinKeyBytes as
// ParseKey takes it, hidden as every Key is; no key gives no key.
func TestKeyFor(t *testing.T) {
	t.Parallel()
	a, again, b := testKey.For("eu-west"), testKey.For("eu-west"), testKey.For("us-east")
	if a.Reveal() != again.Reveal() || a.Reveal() == b.Reveal() || a.Reveal() == testKey.Reveal() || otherKey.For("eu-west").Reveal() == a.Reveal() {
		t.Errorf("eu-west %q, again %q, us-east %q: want one key per name and build key", a.Reveal(), again.Reveal(), b.Reveal())
	}
	if parsed, err := ParseKey(a.Reveal()); err != nil || parsed.Reveal() != a.Reveal() {
		t.Errorf("ParseKey of a vantage's key: %v", err)
	}
	if s := fmt.Sprintf("%v %+v %#v %s", a, a, a, a); strings.Contains(s, a.Reveal()) {
		t.Errorf("a vantage's key printed: %s", s)
	}
	if (Key{}).For("eu-west").Set() {
		t.Error("no key gave a key")
	}
}
