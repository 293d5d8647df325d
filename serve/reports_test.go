package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/serve/limits"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"
)

// reportFrom sends GET target from the client at addr (a RemoteAddr) and
// checks the response against the API description.
func reportFrom(t *testing.T, ts *testServer, addr, target string) []byte {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.RemoteAddr = addr
	rec := httptest.NewRecorder()
	ts.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("%s from %s: %d %s", target, addr, rec.Code, rec.Body)
	}
	assertContract(t, req, rec.Code, rec.Header(), rec.Body.Bytes())
	return rec.Body.Bytes()
}

// clients are n distinct clients' RemoteAddrs: IPv4 addresses and IPv6
// addresses in distinct /64s.
func clients(n int) []string {
	out := make([]string, n)
	for i := range out {
		if i%2 == 0 {
			out[i] = fmt.Sprintf("203.0.113.%d:40000", i)
		} else {
			out[i] = fmt.Sprintf("[2001:db8:0:%x::1]:40000", i)
		}
	}
	return out
}

// reportsEvidence is the reports evidence of a /check answer.
func reportsEvidence(t *testing.T, data []byte) (snapshot.Verdict, snapshot.Evidence) {
	t.Helper()
	var doc snapshot.CheckDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, e := range doc.Verdict.Evidence {
		if e.Source == snapshot.EvidenceReports {
			return doc.Verdict, e
		}
	}
	t.Fatalf("no reports evidence in %s", data)
	return snapshot.Verdict{}, snapshot.Evidence{}
}

// serviceReports is the reports object of a service document.
func serviceReports(t *testing.T, data []byte) *snapshot.Reports {
	t.Helper()
	var doc snapshot.ServiceDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Reports
}

const surgeAlone = "Many callers report errors; neither the page nor our probes see it yet."

// TestReportsCrowd: twenty distinct clients reporting error=529 for a
// service within five minutes are reports evidence with their count and a
// surge said as such (the page and our probes see nothing); one client
// reporting 200 times — and from two addresses of one IPv6 /64 — counts
// once; /api/v1/services/{slug} carries the live count, which the file as
// built (a static host's) has not.
func TestReportsCrowd(t *testing.T) {
	ts := newTestServer(t, 0)
	for _, c := range clients(20) {
		reportFrom(t, ts, c, "/api/v1/check?q=anthropic&error=529")
	}
	verdict, ev := reportsEvidence(t, reportFrom(t, ts, "198.51.100.1:1", "/api/v1/check?q=anthropic"))
	if ev.Count == nil || *ev.Count != 20 || ev.State != snapshot.ReportsSurge || ev.ObservedAt == nil {
		t.Errorf("reports evidence %+v, want a surge of 20", ev)
	}
	if !strings.Contains(verdict.Reason, surgeAlone) || verdict.Confidence != snapshot.ConfidenceHigh || verdict.Action != snapshot.ActionProceed {
		t.Errorf("verdict %s/%s %q: want it unchanged but for the surge said alone", verdict.Action, verdict.Confidence, verdict.Reason)
	}
	if r := serviceReports(t, reportFrom(t, ts, "198.51.100.1:1", "/api/v1/services/anthropic")); r == nil || r.Count != 20 ||
		r.State != snapshot.ReportsSurge || r.WindowSeconds != 300 || r.Baseline != nil {
		t.Errorf("service reports %+v, want a surge of 20 in a 5-minute window", r)
	}

	for i := range 200 {
		addr := "[2001:db8:1:2::1]:5000"
		if i%2 == 1 {
			addr = "[2001:db8:1:2:ffff::9]:5001" // the same /64
		}
		reportFrom(t, ts, addr, "/api/v1/check?q=openai&error=529")
	}
	verdict, ev = reportsEvidence(t, reportFrom(t, ts, "198.51.100.1:1", "/api/v1/check?q=openai&error=529"))
	if ev.Count == nil || *ev.Count != 2 || ev.State != snapshot.ReportsNormal || strings.Contains(verdict.Reason, "Many") {
		t.Errorf("one /64 reporting 200 times and one other client: %+v (%q), want 2, normal", ev, verdict.Reason)
	}

	built, err := os.ReadFile(filepath.Join(ts.dir, snapshot.ServiceFile("anthropic")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(built), `"reports"`) {
		t.Errorf("the file as built has reports: %.200s", built)
	}
}

// TestReportsSharedAcrossReplicas: two replicas sharing a real Redis count
// one crowd — twenty clients, half on each replica, are twenty on both,
// and a client reporting 200 times to both is one — and Redis holds no
// address: the window's HyperLogLog and salt expire one window after the
// window, and what outlives them are counts.
func TestReportsSharedAcrossReplicas(t *testing.T) {
	rdb := startRedis(t).client()
	const span = 2 * time.Second
	pair := replicas(t, 2, 0, rdb, zerolog.Nop())
	for _, ts := range pair {
		ts.opts.ReportWindow = span
		ts.Server = New(ts.opts)
		if ok, err := ts.Store().Reload(); !ok || err != nil {
			t.Fatalf("reload: %v %v", ok, err)
		}
	}
	cs := clients(20)
	for i, c := range cs {
		reportFrom(t, pair[i%2], c, "/api/v1/check?q=anthropic&error=529")
	}
	for i := range 200 {
		reportFrom(t, pair[i%2], cs[0], "/api/v1/check?q=anthropic&error=529")
	}
	for i, ts := range pair {
		_, ev := reportsEvidence(t, reportFrom(t, ts, "198.51.100.1:1", "/api/v1/check?q=anthropic"))
		if ev.Count == nil || *ev.Count != 20 || ev.State != snapshot.ReportsSurge {
			t.Errorf("replica %d: reports %+v, want a surge of 20", i, ev)
		}
	}

	ctx := context.Background()
	prefix := limits.CrowdKeyPrefix("anthropic")
	keys, err := rdb.Keys(ctx, prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	windowKeys := 0
	for _, k := range keys {
		dump := redisDump(t, rdb, k)
		for _, c := range append(cs, "203.0.113.", "2001:db8") {
			host := strings.Trim(strings.TrimSuffix(c, ":40000"), "[]")
			if strings.Contains(k, host) || strings.Contains(dump, host) {
				t.Errorf("key %s holds an address (%s): %q", k, host, dump)
			}
		}
		if strings.Contains(k, ":hll:") || strings.Contains(k, ":salt:") {
			windowKeys++
			if ttl := rdb.PTTL(ctx, k).Val(); ttl <= 0 || ttl > 2*span {
				t.Errorf("%s expires in %v, want within two windows", k, ttl)
			}
		}
	}
	if windowKeys != 2 {
		t.Fatalf("keys %v: want one HyperLogLog and one salt", keys)
	}
	time.Sleep(2*span + 100*time.Millisecond)
	left, err := rdb.Keys(ctx, prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range left {
		if strings.Contains(k, ":hll:") || strings.Contains(k, ":salt:") {
			t.Errorf("%s outlived its window", k)
		}
	}
	if n, err := rdb.HGet(ctx, prefix+"cur", "n").Int(); err != nil || n != 20 {
		t.Errorf("the window's count kept as %d (%v), want 20", n, err)
	}
}

// redisDump is a key's value as text, whatever its type.
func redisDump(t *testing.T, rdb *redis.Client, key string) string {
	t.Helper()
	ctx := context.Background()
	switch typ := rdb.Type(ctx, key).Val(); typ {
	case "string":
		return rdb.Get(ctx, key).Val()
	case "hash":
		return fmt.Sprint(rdb.HGetAll(ctx, key).Val())
	default:
		t.Errorf("%s is a %s", key, typ)
		return ""
	}
}

// TestReportsFromMCP: a check_service call through /mcp is a /check call
// and counts, as its caller's voice — once, however often it calls.
func TestReportsFromMCP(t *testing.T) {
	ts := newTestServer(t, 0)
	hs := loopback(t, ts)
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"check_service","arguments":{"query":"anthropic","error":"529"}}}`
	for range 3 {
		if resp, data := mcpPost(t, hs, strings.NewReader(msg)); resp.StatusCode != http.StatusOK {
			t.Fatalf("POST /mcp: %d %.200s", resp.StatusCode, data)
		}
	}
	_, ev := reportsEvidence(t, reportFrom(t, ts, "198.51.100.1:1", "/api/v1/check?q=anthropic"))
	if ev.Count == nil || *ev.Count != 1 {
		t.Errorf("reports after three MCP calls from one client: %+v, want 1", ev)
	}
}

// TestReportsNoCrowd: a server for one caller (aistatus mcp --dir) counts
// nothing and says nothing of a crowd: no reports evidence, no reports in
// the service document.
func TestReportsNoCrowd(t *testing.T) {
	ts := newTestServer(t, 0)
	ts.opts.NoCrowd = true
	ts.Server = New(ts.opts)
	if ok, err := ts.Store().Reload(); !ok || err != nil {
		t.Fatalf("reload: %v %v", ok, err)
	}
	var doc snapshot.CheckDoc
	if err := json.Unmarshal(reportFrom(t, ts, "198.51.100.1:1", "/api/v1/check?q=anthropic&error=529"), &doc); err != nil {
		t.Fatal(err)
	}
	for _, e := range doc.Verdict.Evidence {
		if e.Source == snapshot.EvidenceReports {
			t.Errorf("reports evidence without a crowd: %+v", e)
		}
	}
	if r := serviceReports(t, reportFrom(t, ts, "198.51.100.1:1", "/api/v1/services/anthropic")); r != nil {
		t.Errorf("service reports without a crowd: %+v", r)
	}
}

// TestReportsBaselineInRedis: the baseline kept in Redis is the mean count
// per window of the same hour on the days Redis holds a record of — two
// days ago 24 voices in one window of the hour, yesterday none — so that
// 12 voices today are a surge over a baseline of 1.
func TestReportsBaselineInRedis(t *testing.T) {
	ts := replicas(t, 1, 0, startRedis(t).client(), zerolog.Nop())[0]
	now := genTime.Add(time.Minute)
	read := func(at time.Time) *snapshot.Reports {
		ts.clock.Set(at)
		return serviceReports(t, reportFrom(t, ts, "198.51.100.1:1", "/api/v1/services/anthropic"))
	}
	ts.clock.Set(now.Add(-48 * time.Hour))
	for _, c := range clients(24) {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/check?q=anthropic&error=529", nil)
		req.RemoteAddr = c
		ts.Handler().ServeHTTP(httptest.NewRecorder(), req) // stale data: still a report
	}
	if r := read(now.Add(-48 * time.Hour)); r == nil || r.Count != 24 || r.Baseline != nil {
		t.Fatalf("two days ago: %+v, want 24 voices and no baseline", r)
	}
	read(now.Add(-48*time.Hour + 5*time.Minute))
	read(now.Add(-24 * time.Hour))
	read(now.Add(-24*time.Hour + 5*time.Minute))
	ts.clock.Set(now)
	for _, c := range clients(12) {
		reportFrom(t, ts, c, "/api/v1/check?q=anthropic&error=529")
	}
	r := read(now)
	if r == nil || r.Count != 12 || r.Baseline == nil || *r.Baseline != 1 || r.State != snapshot.ReportsSurge {
		t.Fatalf("today: %+v, want 12 voices, a baseline of 1, a surge", r)
	}
}
