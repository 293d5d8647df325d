package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/serve/shared"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// reportFrom asks /check for q with error= from the client at addr, and
// returns the verdict's crowd evidence (nil when none).
func reportFrom(t *testing.T, ts *testServer, addr, q, observed string) *api.Evidence {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/api/v1/check?q="+q+"&error="+observed, nil)
	req.RemoteAddr = addr
	rec := httptest.NewRecorder()
	ts.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("check from %s: %d %s", addr, rec.Code, rec.Body)
	}
	assertContract(t, req, rec.Code, rec.Header(), rec.Body.Bytes())
	var doc api.CheckDoc
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, ev := range doc.Verdict.Evidence {
		if ev.Source == api.EvidenceReports {
			return &ev
		}
	}
	return nil
}

// onNetwork is a client address (host:port) on the i-th of many networks:
// a /48 of the IPv6 documentation prefix each, so that i callers are i
// voices in the crowd (check.Network).
func onNetwork(i int) string { return fmt.Sprintf("[2001:db8:%x::1]:4000", i) }

// serviceReports is the "reports" member of GET /services/{slug}.
func serviceReports(t *testing.T, ts *testServer, slug string) *api.Reports {
	t.Helper()
	var doc struct {
		Slug    string       `json:"slug"`
		Reports *api.Reports `json:"reports"`
	}
	if err := json.Unmarshal(body(t, ts.do(t, http.MethodGet, "/api/v1/services/"+slug, nil)), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Slug != slug {
		t.Fatalf("the document with reports is not %s's: %q", slug, doc.Slug)
	}
	return doc.Reports
}

// TestCrowdReports: twenty distinct clients reporting error=529 within five
// minutes show as reports evidence with their count, in the verdict and the
// service document — not as a surge: a server that started a minute ago has
// no baseline; one client reporting 200 times, or from other addresses of
// its IPv4 /24, counts once, and so do the /64s of one IPv6 /48; a check
// without error= is not a report; the count restarts with the next window;
// the service file a static host serves has no reports.
func TestCrowdReports(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	if r := serviceReports(t, ts, "anthropic"); r == nil || r.Count != 0 || r.State != check.ReportsUnknown || r.Baseline != nil {
		t.Fatalf("before any report: %+v", r)
	}
	for i := range 200 {
		ev := reportFrom(t, ts, "192.0.2.7:4000", "anthropic", "529")
		if ev == nil || *ev.Count != 1 {
			t.Fatalf("report %d from one client: evidence %+v, want a count of 1", i+1, ev)
		}
	}
	for i := range 50 {
		// One /24: one voice, whatever the address on it.
		if ev := reportFrom(t, ts, fmt.Sprintf("192.0.2.%d:4000", 100+i), "anthropic", "529"); *ev.Count != 1 {
			t.Fatalf("address %d of the first client's /24: count %d, want 1", i+1, *ev.Count)
		}
	}
	for i := range 50 {
		// One /48: one voice, whatever the /64 or the interface identifier.
		if ev := reportFrom(t, ts, fmt.Sprintf("[2001:db8:1:%x::%x]:4000", i, i+1), "anthropic", "529"); *ev.Count != 2 {
			t.Fatalf("address %d of one /48: count %d, want 2", i+1, *ev.Count)
		}
	}
	var last *api.Evidence
	for i := 3; i <= 20; i++ {
		last = reportFrom(t, ts, onNetwork(i), "anthropic", "529")
		if *last.Count != i {
			t.Fatalf("client %d: count %d", i, *last.Count)
		}
	}
	if last.State != check.ReportsUnknown || last.ObservedAt == nil || last.Baseline != nil ||
		!strings.Contains(last.Says, "Callers on 20 networks (an IPv4 /24 or an IPv6 /48 each) reported errors") {
		t.Fatalf("20 clients: evidence %+v", last)
	}
	if doc := checkDoc(t, ts, "anthropic"); hasReports(doc) {
		t.Fatal("a check without error= cites the crowd")
	}
	if r := serviceReports(t, ts, "anthropic"); r == nil || r.Count != 20 || r.State != check.ReportsUnknown ||
		r.WindowEnd.Sub(r.WindowStart) != check.ReportWindow {
		t.Fatalf("service document: reports %+v", r)
	}
	if r := serviceReports(t, ts, "openai"); r.Count != 0 {
		t.Fatalf("another service counts %d reports", r.Count)
	}
	raw, err := os.ReadFile(filepath.Join(ts.dir, snapshot.ServiceFile("anthropic")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `"reports"`) {
		t.Fatal("the static service file holds reports")
	}

	ts.clock.Set(ts.clock.Now().Add(check.ReportWindow))
	if ev := reportFrom(t, ts, "192.0.2.7:4000", "anthropic", "timeout"); *ev.Count != 1 || ev.State != check.ReportsUnknown {
		t.Fatalf("next window: %+v", ev)
	}
}

// TestCrowdForgottenWhileIdle: a serving process that nobody asks still
// drops the crowd's closed windows: a client's hash is gone soon after its
// window ends, not at the next call.
func TestCrowdForgottenWhileIdle(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	ts.forgetEvery = time.Millisecond
	reportFrom(t, ts, "192.0.2.7:4000", "anthropic", "529")
	if n := ts.local.Holding(); n != 1 {
		t.Fatalf("one client's report: holding %d hashes", n)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ts.Serve(ctx, ln) }()
	defer func() {
		cancel()
		<-served
	}()
	ts.clock.Set(ts.clock.Now().Add(check.ReportWindow))
	for deadline := time.Now().Add(10 * time.Second); ts.local.Holding() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the window has ended and nobody asks: its client's hash is still held")
		}
	}
}

// TestCrowdSurgeOnPlainCheck: once callers on ten networks have reported
// errors for Groq through /check?error= on a server counting since this
// hour began yesterday (a baseline of 0), a plain /check of Groq cites the
// surge, its status still operational, and the statusline marks it, by
// name and without q. One network fewer is no surge, and neither are ten
// addresses of one /24 or of one /48; then neither says anything of the
// crowd.
func TestCrowdSurgeOnPlainCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		from   func(i int) string
		voices int
		surge  bool
	}{
		{"a surge", onNetwork, check.SurgeMinReports, true},
		{"one network short of a surge", onNetwork, check.SurgeMinReports - 1, false},
		{"ten addresses of one /24", func(i int) string { return fmt.Sprintf("198.51.100.%d:4000", i+1) }, check.SurgeMinReports, false},
		{"ten /64s of one /48", func(i int) string { return fmt.Sprintf("[2001:db8:7:%x::1]:4000", i) }, check.SurgeMinReports, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServerStarted(t, 0, genTime.Add(-24*time.Hour))
			ts.clock.Set(genTime.Add(time.Minute))
			for i := range tc.voices {
				reportFrom(t, ts, tc.from(i), "groq", "529")
			}
			doc := checkDoc(t, ts, "groq")
			var surge *api.Evidence
			for _, ev := range doc.Verdict.Evidence {
				if ev.Source == api.EvidenceReports {
					surge = &ev
				}
			}
			named := string(body(t, ts.do(t, http.MethodGet, snapshot.PathStatusline+"?q=groq", nil)))
			all := string(body(t, ts.do(t, http.MethodGet, snapshot.PathStatusline, nil)))
			wantNamed, wantAll := "✅ Groq up\n", "🔴 Anthropic: claude.ai major outage, Claude Code major outage · "+
				"🔴 Cohere: API major outage · ⚠️ OpenAI: API degraded · ❔ 2 unknown\n"
			if tc.surge {
				if surge == nil || surge.State != check.ReportsSurge || *surge.Count != tc.voices || *doc.Status != api.Operational {
					t.Errorf("plain /check after %d reports: status %s, crowd evidence %+v, want the surge", tc.voices, *doc.Status, surge)
				}
				marker := fmt.Sprintf(" (👥 errors reported from %d networks)", tc.voices)
				wantNamed = "✅ Groq up" + marker + "\n"
				// The status items as they were, and the surge as a note.
				wantAll = strings.TrimSuffix(wantAll, "\n") + fmt.Sprintf(" · 👥 Groq: errors reported from %d networks\n", tc.voices)
			} else if surge != nil {
				t.Errorf("plain /check after %d reports cites %+v", tc.voices, surge)
			}
			if named != wantNamed {
				t.Errorf("statusline for groq %q, want %q", named, wantNamed)
			}
			if all != wantAll {
				t.Errorf("statusline %q\nwant %q", all, wantAll)
			}
		})
	}
}

func hasReports(doc api.CheckDoc) bool {
	for _, ev := range doc.Verdict.Evidence {
		if ev.Source == api.EvidenceReports {
			return true
		}
	}
	return false
}

// TestCrowdAcrossReplicas: replicas sharing Redis count one crowd: callers
// on twenty networks spread over three replicas are twenty voices; one
// client asking each replica 200 times is one, and so are the other
// addresses of its /24, written as IPv4 or IPv4-mapped IPv6, and the /64s
// of one /48. Redis holds counts only: no key or value holds an address,
// and the window's voices and salt expire with it.
func TestCrowdAcrossReplicas(t *testing.T) {
	t.Parallel()
	rdb := startRedis(t).client()
	rs := replicas(t, 3, 0, rdb, zerolog.Nop())
	for i := range 200 {
		if ev := reportFrom(t, rs[i%3], "203.0.113.50:1000", "groq", "529"); *ev.Count != 1 {
			t.Fatalf("report %d of one client: count %d", i+1, *ev.Count)
		}
	}
	for i := range 30 {
		addr := fmt.Sprintf("203.0.113.%d:1000", 100+i)
		if i%2 == 0 {
			addr = fmt.Sprintf("[::ffff:203.0.113.%d]:1000", 100+i)
		}
		if ev := reportFrom(t, rs[i%3], addr, "groq", "529"); *ev.Count != 1 {
			t.Fatalf("address %s of the client's /24: count %d, want 1", addr, *ev.Count)
		}
	}
	for i := range 30 {
		if ev := reportFrom(t, rs[i%3], fmt.Sprintf("[2001:db8:ff:%x::1]:1000", i), "groq", "529"); *ev.Count != 2 {
			t.Fatalf("/64 %d of one /48: count %d, want 2", i, *ev.Count)
		}
	}
	var last *api.Evidence
	for i := 3; i <= 20; i++ {
		last = reportFrom(t, rs[i%3], onNetwork(i), "groq", "529")
	}
	if *last.Count != 20 || last.State != check.ReportsUnknown {
		t.Fatalf("20 clients on 3 replicas, counting for a minute: %+v", last)
	}
	for i, ts := range rs {
		if r := serviceReports(t, ts, "groq"); r.Count != 20 {
			t.Fatalf("replica %d: reports %+v", i, r)
		}
		// The counts of every service at once (the situation's and
		// /metrics'), in one pipeline, are each service's own.
		now := ts.clock.Now()
		all := ts.crowd.CountAll([]string{"groq", "openai", "anthropic"}, now)
		for _, slug := range []string{"groq", "openai", "anthropic"} {
			one, ok := ts.crowd.Count(slug, now)
			if got, listed := all[slug]; !ok || !listed || got.Count != one.Count || !got.Window.Equal(one.Window) || got.State() != one.State() {
				t.Errorf("replica %d: CountAll says %s %+v, Count %+v", i, slug, got, one)
			}
		}
		if all["groq"].Count != 20 || all["openai"].Count != 0 {
			t.Errorf("replica %d: CountAll %+v, want groq 20 and openai 0", i, all)
		}
	}

	ctx := context.Background()
	keys, err := rdb.Keys(ctx, shared.RedisKeyPrefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, key := range keys {
		if !strings.Contains(key, "crowd:") {
			continue
		}
		dump, err := rdb.Dump(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, addr := range []string{"203.0.113.", "2001:db8:", "::ffff:"} {
			if strings.Contains(key, addr) || strings.Contains(dump, addr) {
				t.Fatalf("Redis key %s holds the address %s", key, addr)
			}
		}
		ttl, err := rdb.TTL(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.Contains(key, "crowd:voices:"), strings.Contains(key, "crowd:salt:"):
			kinds["window"]++
			if ttl <= 0 || ttl > 2*check.ReportWindow {
				t.Errorf("%s is kept %v, want the window's voices gone within %v", key, ttl, 2*check.ReportWindow)
			}
		case strings.Contains(key, "crowd:n:"):
			kinds["counts"]++
			if ttl <= 0 || ttl > 10*24*time.Hour {
				t.Errorf("%s is kept %v", key, ttl)
			}
		}
	}
	if kinds["window"] != 2 || kinds["counts"] != 1 {
		t.Fatalf("the crowd wrote %v to Redis, want a window's voices and salt and a day's counts: %v", kinds, keys)
	}
}

// TestCrowdExactInRedis: replicas sharing Redis count every voice exactly,
// one by one up to the cap and not past it: a count near the surge
// threshold that is one off changes the state (a HyperLogLog miscounted 20
// voices about once in 80 windows). What Redis holds stays bounded by the
// cap, and the replicas' own fallback counts nothing while Redis answers.
func TestCrowdExactInRedis(t *testing.T) {
	t.Parallel()
	rdb := startRedis(t).client()
	clock := newTestClock(genTime.Add(time.Minute))
	var crowds []check.Crowd
	var fallbacks []*check.MemoryCrowd
	for range 2 {
		fallback := check.NewMemoryCrowd(clock.Now())
		crowds = append(crowds, shared.NewRedis(rdb, zerolog.Nop(), clock.Now).Crowd(fallback))
		fallbacks = append(fallbacks, fallback)
	}
	for i := range check.MaxReportsPerWindow + 20 {
		client := fmt.Sprintf("2001:db8:%x::1", i) // a network each
		rc, ok := crowds[i%2].Report("groq", client, clock.Now())
		if want := min(i+1, check.MaxReportsPerWindow); !ok || rc.Count != want {
			t.Fatalf("voice %d: count %d (ok %v), want %d", i+1, rc.Count, ok, want)
		}
		if rc, _ := crowds[(i+1)%2].Report("groq", client, clock.Now()); rc.Count != min(i+1, check.MaxReportsPerWindow) {
			t.Fatalf("voice %d again on the other replica: count %d", i+1, rc.Count)
		}
	}
	for i, c := range crowds {
		if rc, ok := c.Count("groq", clock.Now()); !ok || rc.Count != check.MaxReportsPerWindow {
			t.Errorf("replica %d reads %d, want the cap %d", i, rc.Count, check.MaxReportsPerWindow)
		}
		if n := fallbacks[i].Holding(); n != 0 {
			t.Errorf("replica %d's fallback holds %d voices while Redis answers", i, n)
		}
	}
	ctx := context.Background()
	keys, err := rdb.Keys(ctx, shared.RedisKeyPrefix+"crowd:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range keys {
		if n, err := rdb.MemoryUsage(ctx, key).Result(); err != nil || n > 100<<10 {
			t.Errorf("%s takes %d bytes in Redis (%v), want the cap to bound it", key, n, err)
		}
	}
}

// TestNoCrowd: a server for one caller on its own machine (aistatus mcp
// --dir) counts nothing and says nothing of a crowd.
func TestNoCrowd(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	ts.opts.NoCrowd = true
	ts.Server = New(ts.opts)
	if ok, err := ts.Store().Reload(); !ok || err != nil {
		t.Fatalf("reload: %v %v", ok, err)
	}
	if ev := reportFrom(t, ts, "192.0.2.7:4000", "anthropic", "529"); ev != nil {
		t.Fatalf("reports evidence without a crowd: %+v", ev)
	}
	if r := serviceReports(t, ts, "anthropic"); r != nil {
		t.Fatalf("reports without a crowd: %+v", r)
	}
}

// TestCrowdFromMCP: a check_service call through /mcp is a /check call,
// and counts as its caller's voice — the client behind a trusted proxy,
// as the rate limit keys it — not as the proxy's, nor as nobody's (the
// tool's in-process request has no client address of its own). One
// client calling three times is one voice.
func TestCrowdFromMCP(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	ts.opts.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
	ts.Server = New(ts.opts)
	if ok, err := ts.Store().Reload(); !ok || err != nil {
		t.Fatalf("reload: %v %v", ok, err)
	}
	hs := loopback(t, ts)
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"check_service","arguments":{"query":"anthropic","error":"529"}}}`
	// Three networks: a voice each.
	for _, client := range []string{"203.0.113.1", "198.51.100.2", "192.0.2.3", "192.0.2.3", "192.0.2.3"} {
		resp, data := send(t, hs, http.MethodPost, snapshot.PathMCP, strings.NewReader(msg), http.Header{
			"Content-Type":    {"application/json"},
			"Accept":          {"application/json, text/event-stream"},
			"X-Forwarded-For": {client},
		})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST /mcp from %s: %d %.200s", client, resp.StatusCode, data)
		}
	}
	if r := serviceReports(t, ts, "anthropic"); r == nil || r.Count != 3 {
		t.Errorf("reports after check_service from three clients behind the proxy: %+v, want 3", r)
	}
}

// TestCrowdBaselineInRedis: the baseline replicas share through Redis is
// the mean count per window of the same hour on the previous days counting
// ran: yesterday 24 callers in one of the hour's twelve windows make a
// baseline of 2, over which 12 callers today are a surge and 5 are not.
// Before there is one, 12 callers are no surge. Redis keeps when counting
// began and the counts, so replicas started since keep the baseline.
func TestCrowdBaselineInRedis(t *testing.T) {
	t.Parallel()
	rdb := startRedis(t).client()
	rs := replicas(t, 2, 0, rdb, zerolog.Nop())
	now := genTime.Add(time.Minute)
	at := func(tm time.Time) {
		for _, ts := range rs {
			ts.clock.Set(tm)
		}
	}
	at(now.Add(-24*time.Hour - 2*time.Minute)) // counting begins before yesterday's hour
	if r := serviceReports(t, rs[0], "groq"); r == nil || r.Baseline != nil || r.State != check.ReportsUnknown {
		t.Fatalf("first read: %+v, want no baseline", r)
	}
	for i := range 12 {
		reportFrom(t, rs[i%2], onNetwork(i), "groq", "529")
	}
	if r := serviceReports(t, rs[1], "groq"); r == nil || r.Count != 12 || r.State != check.ReportsUnknown {
		t.Fatalf("12 callers without a baseline: %+v, want no surge", r)
	}
	at(now.Add(-24 * time.Hour))
	for i := range 24 {
		reportFrom(t, rs[i%2], onNetwork(100+i), "groq", "529")
	}
	// Today's replicas are new processes: their own counting began now.
	rs = replicas(t, 2, 0, rdb, zerolog.Nop())
	at(now)
	for i := range 5 {
		reportFrom(t, rs[i%2], onNetwork(200+i), "groq", "529")
	}
	for i, ts := range rs {
		if r := serviceReports(t, ts, "groq"); r == nil || r.Count != 5 || r.Baseline == nil || *r.Baseline != 2 || r.State != check.ReportsNormal {
			t.Fatalf("replica %d, 5 callers: %+v, want a baseline of 2 and no surge", i, r)
		}
	}
	for i := 5; i < 12; i++ {
		reportFrom(t, rs[i%2], onNetwork(200+i), "groq", "529")
	}
	if r := serviceReports(t, rs[1], "groq"); r == nil || r.Count != 12 || r.State != check.ReportsSurge {
		t.Fatalf("12 callers over a baseline of 2: %+v, want a surge", r)
	}
}

// TestCrowdOnSituation: /situation carries each service's crowd count on
// its service subject, as the service document does, and on no other
// subject; the file a static host serves has none, and neither has the
// answer of a server without a crowd.
func TestCrowdOnSituation(t *testing.T) {
	t.Parallel()
	situation := func(ts *testServer) api.Situation {
		t.Helper()
		var doc api.Situation
		if err := json.Unmarshal(body(t, ts.do(t, http.MethodGet, snapshot.PathSituation, nil)), &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	for _, tc := range []struct {
		name    string
		noCrowd bool
		reports int
		// want are the counts by subject id; absent, no reports member.
		want map[string]int
	}{
		{"no reports yet", false, 0, map[string]int{"anthropic": 0, "openai": 0}},
		{"three callers report Anthropic", false, 3, map[string]int{"anthropic": 3, "openai": 0}},
		{"a server without a crowd", true, 3, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, 0)
			if tc.noCrowd {
				withoutCrowd(t, ts)
			}
			situation(ts) // cached before the reports: a new count must show
			for i := range tc.reports {
				reportFrom(t, ts, onNetwork(i+1), "anthropic", "529")
			}
			doc := situation(ts)
			services := 0
			for _, sub := range doc.Subjects {
				if sub.Kind != api.SubjectService {
					if sub.Reports != nil {
						t.Errorf("%s (%s) carries reports", sub.ID, sub.Kind)
					}
					continue
				}
				services++
				if tc.want == nil {
					if sub.Reports != nil {
						t.Errorf("%s: reports %+v without a crowd", sub.ID, sub.Reports)
					}
					continue
				}
				if sub.Reports == nil {
					t.Errorf("%s: no reports", sub.ID)
					continue
				}
				if want, ok := tc.want[sub.ID]; ok && sub.Reports.Count != want {
					t.Errorf("%s: %d reports, want %d", sub.ID, sub.Reports.Count, want)
				}
			}
			if services != len(ts.cat.Services) {
				t.Errorf("%d service subjects, want %d", services, len(ts.cat.Services))
			}
		})
	}
	raw, err := os.ReadFile(filepath.Join(newTestServer(t, 0).dir, snapshot.FileSituation))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `"reports"`) {
		t.Fatal("the static situation file holds reports")
	}
}

// TestCrowdOnMetrics: /metrics carries the crowd's live count and surge
// flag per service after the built families, each labelled as reports and
// not a status; a new count shows at once; a surge (callers on ten
// networks, over a day's baseline) sets aistatus_crowd_surge and leaves
// every built series, the statuses included, as built, and ten addresses
// of one /24 are no surge; a server without a crowd serves the built
// file; promtool's linter passes the whole exposition.
func TestCrowdOnMetrics(t *testing.T) {
	t.Parallel()
	oneSlash24 := func(i int) string { return fmt.Sprintf("198.51.100.%d:4000", i+1) }
	for _, tc := range []struct {
		name    string
		noCrowd bool
		// baseline: the server began counting before this hour yesterday.
		baseline bool
		reports  int
		from     func(i int) string
		// want are the crowd samples by series; nil: none at all.
		want map[string]string
	}{
		{"no reports yet", false, false, 0, onNetwork, map[string]string{
			`aistatus_crowd_reports{service="anthropic"}`: "0", `aistatus_crowd_surge{service="anthropic"}`: "0"}},
		{"three callers report Anthropic", false, false, 3, onNetwork, map[string]string{
			`aistatus_crowd_reports{service="anthropic"}`: "3", `aistatus_crowd_reports{service="openai"}`: "0",
			// Three voices and no baseline yet: no surge.
			`aistatus_crowd_surge{service="anthropic"}`: "0"}},
		{"a surge at Anthropic", false, true, check.SurgeMinReports, onNetwork, map[string]string{
			`aistatus_crowd_reports{service="anthropic"}`: strconv.Itoa(check.SurgeMinReports), `aistatus_crowd_surge{service="anthropic"}`: "1",
			`aistatus_crowd_surge{service="openai"}`: "0"}},
		{"ten addresses of one /24", false, true, check.SurgeMinReports, oneSlash24, map[string]string{
			`aistatus_crowd_reports{service="anthropic"}`: "1", `aistatus_crowd_surge{service="anthropic"}`: "0"}},
		{"a server without a crowd", true, false, 3, onNetwork, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, 0)
			if tc.baseline {
				ts = newTestServerStarted(t, 0, genTime.Add(-24*time.Hour))
				ts.clock.Set(genTime.Add(time.Minute))
			}
			if tc.noCrowd {
				withoutCrowd(t, ts)
			}
			body(t, ts.do(t, http.MethodGet, snapshot.PathMetrics, nil)) // cached before the reports: a new count must show
			for i := range tc.reports {
				reportFrom(t, ts, tc.from(i), "anthropic", "529")
			}
			resp := ts.do(t, http.MethodGet, snapshot.PathMetrics, nil)
			if ct := resp.Header.Get("Content-Type"); ct != snapshot.ContentMetrics {
				t.Errorf("Content-Type %q", ct)
			}
			metrics := body(t, resp)
			built, err := os.ReadFile(filepath.Join(ts.dir, snapshot.FileMetrics))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(metrics, built) {
				t.Fatalf("/metrics does not begin with the built file")
			}
			samples := map[string]string{}
			for _, line := range strings.Split(strings.TrimSuffix(string(metrics[len(built):]), "\n"), "\n") {
				if help, ok := strings.CutPrefix(line, "# HELP "); ok && !strings.Contains(help, "Reports, not a status") {
					t.Errorf("a crowd family's HELP does not say it is reports, not a status: %s", help)
				}
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				series, value, _ := strings.Cut(line, " ")
				samples[series] = value
			}
			if tc.want == nil {
				if len(samples) != 0 {
					t.Errorf("crowd series without a crowd: %v", samples)
				}
				return
			}
			if n := len(samples); n != 2*len(ts.cat.Services) {
				t.Errorf("%d crowd samples, want two for each of %d services", n, len(ts.cat.Services))
			}
			for series, want := range tc.want {
				if got := samples[series]; got != want {
					t.Errorf("%s = %q, want %s", series, got, want)
				}
			}
			promtool, err := exec.LookPath("promtool")
			if err != nil {
				t.Skip("no promtool: install Debian's prometheus package (.ci/run does)")
			}
			cmd := exec.Command(promtool, "check", "metrics")
			cmd.Stdin = bytes.NewReader(metrics)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("promtool check metrics: %v\n%s", err, out)
			}
		})
	}
}

// withoutCrowd makes ts a server that counts no crowd (Options.NoCrowd) on
// the same snapshot.
func withoutCrowd(t *testing.T, ts *testServer) {
	t.Helper()
	ts.opts.NoCrowd = true
	ts.Server = New(ts.opts)
	if ok, err := ts.Store().Reload(); !ok || err != nil {
		t.Fatalf("reload: %v %v", ok, err)
	}
}
