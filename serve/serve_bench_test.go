package serve

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/bench/synth"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/logbatch"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// The benchmarks run requests through the full Handler (common headers,
// routing, limiter when on) into a writer that discards the body, so they
// measure the server and not a recorder's buffer. Run them with
//
//	go test -run '^$' -bench . -benchmem ./serve

// newSynthServer serves a synthetic snapshot (bench/synth: 26 services, 30
// days of history, incidents retained incidents). Probe URLs point at a
// loopback fake and the clock stands a minute after generation, so the data
// is fresh and the live-probe cache, once warm, stays warm.
func newSynthServer(b testing.TB, incidents, rateLimit int) *testServer {
	b.Helper()
	return newOutageServer(b, incidents, rateLimit, "")
}

// newOutageServer is newSynthServer with the service majorOutage ("":
// none but synth's own) in a major outage as Anthropic was on 2026-07-29
// (synth.Cycle.MajorOutage), its hosts answering our live probes 500.
func newOutageServer(b testing.TB, incidents, rateLimit int, majorOutage string) *testServer {
	b.Helper()
	cat, err := catalog.Default()
	if err != nil {
		b.Fatal(err)
	}
	api := newFakeAPIDown(b, majorOutage)
	probeAt(&cat, api.URL)
	cycle := synth.New(cat, genTime, 30, incidents)
	if majorOutage != "" {
		if err := cycle.MajorOutage(cat, majorOutage); err != nil {
			b.Fatal(err)
		}
	}
	files, err := cycle.Snapshot(build.Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "bench"}, cat)
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(b.TempDir(), "public")
	if err := snapshot.Publish(dir, files); err != nil {
		b.Fatal(err)
	}
	clock := newTestClock(genTime.Add(time.Minute))
	srv := New(Options{Dir: dir, Catalog: cat, RateLimit: rateLimit, Log: zerolog.Nop(), Now: clock.Now, Client: api.Client()})
	if ok, err := srv.Store().Reload(); !ok || err != nil {
		b.Fatalf("reload: %v %v", ok, err)
	}
	return &testServer{Server: srv, dir: dir, clock: clock, api: api, cat: cat}
}

// discardWriter is a ResponseWriter that keeps only the status and size.
type discardWriter struct {
	h       http.Header
	code, n int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}
func (w *discardWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.n += len(p)
	return len(p), nil
}

// reset readies w for the next request with a new header map, as net/http
// gives every request: filling it (and growing it past its first eight
// entries) is part of what a response costs.
func (w *discardWriter) reset() { w.h = make(http.Header); w.code, w.n = 0, 0 }

// ReadFrom copies without allocating a buffer per call, as net/http's own
// ResponseWriter does (http.ServeContent copies through it).
func (w *discardWriter) ReadFrom(r io.Reader) (int64, error) {
	w.WriteHeader(http.StatusOK)
	n, err := io.Copy(io.Discard, r)
	w.n += int(n)
	return n, err
}

// benchRequest is a GET of target from one client with extra headers.
func benchRequest(target string, header http.Header) *http.Request {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.RemoteAddr = "192.0.2.1:1234"
	maps.Copy(req.Header, header)
	return req
}

// benchGet times GET target through h. One untimed request first checks the
// status (and warms the live-probe cache for /check).
func benchGet(b *testing.B, h http.Handler, target string, header http.Header, want int) {
	req := benchRequest(target, header)
	w := &discardWriter{h: http.Header{}}
	h.ServeHTTP(w, req)
	if w.code != want {
		b.Fatalf("GET %s: status %d, want %d", target, w.code, want)
	}
	b.ReportAllocs()
	for b.Loop() {
		w.reset()
		h.ServeHTTP(w, req)
	}
	b.ReportMetric(float64(w.n), "B/resp")
}

// etagOfResponse is the ETag of GET target, for the 304 benchmarks.
func etagOfResponse(b *testing.B, h http.Handler, target string) string {
	w := &discardWriter{h: http.Header{}}
	h.ServeHTTP(w, benchRequest(target, nil))
	etag := w.h.Get("ETag")
	if etag == "" {
		b.Fatalf("GET %s: no ETag", target)
	}
	return etag
}

var gzipHeader = http.Header{"Accept-Encoding": {"gzip, deflate, br"}}

func BenchmarkStatus(b *testing.B) {
	h := newSynthServer(b, 1000, 0).Handler()
	etag := etagOfResponse(b, h, "/api/v1/status")
	b.Run("identity", func(b *testing.B) { benchGet(b, h, "/api/v1/status", nil, 200) })
	b.Run("gzip", func(b *testing.B) { benchGet(b, h, "/api/v1/status", gzipHeader, 200) })
	b.Run("304", func(b *testing.B) {
		benchGet(b, h, "/api/v1/status", http.Header{"If-None-Match": {etag}}, http.StatusNotModified)
	})
	// The access log as `aistatus serve` writes it by default: JSON lines
	// with a timestamp, in batches, here to a file.
	ts := newSynthServer(b, 1000, 0)
	opts := ts.opts
	batches := logbatch.New(logFile(b), 100*time.Millisecond)
	defer batches.Flush()
	opts.AccessLog, opts.Log = true, zerolog.New(batches).With().Timestamp().Logger()
	logged := New(opts)
	logged.Store().Reload()
	b.Run("identity+accesslog", func(b *testing.B) { benchGet(b, logged.Handler(), "/api/v1/status", nil, 200) })
}

func BenchmarkService(b *testing.B) {
	h := newSynthServer(b, 1000, 0).Handler()
	b.Run("identity", func(b *testing.B) { benchGet(b, h, "/api/v1/services/openai", nil, 200) })
	b.Run("gzip", func(b *testing.B) { benchGet(b, h, "/api/v1/services/openai", gzipHeader, 200) })
}

// BenchmarkIncidents filters 100 000 retained incidents (the retention cap).
func BenchmarkIncidents(b *testing.B) {
	h := newSynthServer(b, history.MaxIncidents, 0).Handler()
	filtered := "/api/v1/incidents?service=openai&severity=major&since=2026-10-01"
	for _, c := range []struct{ name, target string }{
		{"service+severity+since", filtered},
		// The default: the 30 days before generation, the first 100.
		{"default", "/api/v1/incidents"},
		{"limit=1000", "/api/v1/incidents?limit=1000"},
		// The worst case: a rare match over all of one service's history,
		// so the scan passes every one of its ~3 800 incidents.
		{"scan-all", "/api/v1/incidents?service=xai&severity=critical&since=2000-01-01&limit=1000"},
	} {
		b.Run(c.name, func(b *testing.B) { benchGet(b, h, c.target, nil, 200) })
	}
	b.Run("service+severity+since/gzip", func(b *testing.B) { benchGet(b, h, filtered, gzipHeader, 200) })
	etag := etagOfResponse(b, h, filtered)
	b.Run("service+severity+since/304", func(b *testing.B) {
		benchGet(b, h, filtered, http.Header{"If-None-Match": {etag}}, http.StatusNotModified)
	})
}

// BenchmarkCheck runs with the retention cap of incidents: with 1 000 it
// hid a pass over a service's share of them on every request.
func BenchmarkCheck(b *testing.B) {
	ts := newSynthServer(b, 100000, 0)
	for _, c := range []struct{ name, q string }{
		{"name", "openai"},
		{"url", "https://api.openai.com/v1/chat/completions"},
		{"untracked", "example.com"},
		// The longest q accepted, untracked: its suggestions used to cost
		// seven times a tracked check (an edit distance against every name).
		{"untracked-256B", untrackedLongQuery},
		{"untracked-256B-host", "www." + untrackedLongQuery[:248] + ".com"},
		// A model: its maker's service (Anthropic) is probed too.
		{"model", "claude-sonnet-4.5"},
		// During an outage, when everyone asks: the service synth puts in
		// a major outage, with an open official incident.
		{"outage", serviceIn(b, ts, api.MajorOutage)},
		// Claude by its name: Anthropic, in a partial outage in synth, with
		// its surfaces (claude.ai, Claude Code, the console).
		{"claude", "claude"},
		{"claude.ai", "claude.ai"},
	} {
		b.Run(c.name, func(b *testing.B) { benchGet(b, ts.Handler(), "/api/v1/check?q="+urlQuery(c.q), nil, 200) })
	}
	if n := ts.api.hits.Load(); n > 4 {
		b.Fatalf("%d live probes, at most 4 (OpenAI's, Anthropic's, claude.ai's and the outage's): the cache was not warm", n)
	}
	// Anthropic in a major outage, its API and apps down, as on
	// 2026-07-29: what everyone asks then.
	down := newOutageServer(b, 100000, 0, "anthropic")
	for _, q := range []string{"claude", "anthropic", "claude.ai", "openai"} {
		b.Run("anthropic-down/"+q, func(b *testing.B) { benchGet(b, down.Handler(), "/api/v1/check?q="+urlQuery(q), nil, 200) })
	}
	// A caller reporting its own error is answered afresh every time, and
	// counted in the crowd.
	b.Run("anthropic-down/claude-error-529", func(b *testing.B) {
		benchGet(b, down.Handler(), "/api/v1/check?q=claude&error=529", nil, 200)
	})
	// The clock stands still above, so each request after the first is
	// answered from checkMemo, as all but the first of a second are. The
	// engine itself, as that first request runs it, and the answer's
	// encoding:
	snap := down.store.Current()
	for _, q := range []string{"claude", "openai", untrackedLongQuery} {
		b.Run("anthropic-down/engine/"+q[:min(len(q), 16)], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := encodeAnswer(func() (api.CheckDoc, error) { return down.checkerFor(snap).Check(snap, check.Request{Query: q}) }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// serviceIn is the slug of a service the server's snapshot has at status.
func serviceIn(b *testing.B, ts *testServer, status api.Status) string {
	b.Helper()
	w := httptest.NewRecorder()
	ts.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, snapshot.PathStatus, nil))
	var doc api.StatusDoc
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		b.Fatal(err)
	}
	for _, svc := range doc.Services {
		if svc.Status == status {
			return svc.Slug
		}
	}
	b.Fatalf("no service in %s", status)
	return ""
}

// untrackedLongQuery is a 256-byte q that names no service: letters only,
// so that all of it survives name folding.
var untrackedLongQuery = strings.Repeat("qwertyuiopasdfghjklzxcvbnm", 10)[:256]

// BenchmarkRateLimitMiddleware is the limiter's cost on the request path
// (ClientAddr, Allow, the RateLimit headers) on the cheapest request, a 304;
// "off" is the same request without a limiter.
func BenchmarkRateLimitMiddleware(b *testing.B) {
	const target = "/api/v1/status"
	off := newSynthServer(b, 1000, 0)
	on := newSynthServer(b, 30, 30)
	notModified := http.Header{"If-None-Match": {etagOfResponse(b, off.Handler(), target)}}
	b.Run("off", func(b *testing.B) { benchGet(b, off.Handler(), target, notModified, http.StatusNotModified) })
	b.Run("allowed", func(b *testing.B) {
		// The clock moves on by one request's share (60 s / 30) per request,
		// so the client is always within its allowance.
		req := benchRequest(target, http.Header{"If-None-Match": {etagOfResponse(b, on.Handler(), target)}})
		w := &discardWriter{h: http.Header{}}
		b.ReportAllocs()
		for b.Loop() {
			on.clock.Set(on.clock.Now().Add(2 * time.Second))
			w.reset()
			on.Handler().ServeHTTP(w, req)
		}
		if w.code != http.StatusNotModified {
			b.Fatalf("status %d, want 304", w.code)
		}
	})
	b.Run("limited", func(b *testing.B) {
		// One client past its allowance: every request is a 429.
		req := benchRequest(target, nil)
		req.RemoteAddr = "198.51.100.9:1234"
		w := &discardWriter{h: http.Header{}}
		for range 31 {
			w.reset()
			on.Handler().ServeHTTP(w, req)
		}
		if w.code != http.StatusTooManyRequests {
			b.Fatalf("status %d, want 429", w.code)
		}
		b.ReportAllocs()
		for b.Loop() {
			w.reset()
			on.Handler().ServeHTTP(w, req)
		}
	})
}

// BenchmarkStatusAtRequest answers GET /status?at= (every service at a
// past time) from a snapshot at the retention cap of 100 000 incidents, at
// a time a day back.
func BenchmarkStatusAtRequest(b *testing.B) {
	ts := newSynthServer(b, 100_000, 0)
	snap := ts.Store().Current()
	at := snap.Manifest.GeneratedAt.Add(-24 * time.Hour)
	if since := snap.changeLog().since; at.Before(since) {
		at = since.Add(time.Minute)
	}
	b.ReportAllocs()
	benchGet(b, ts.Handler(), snapshot.PathStatus+"?at="+at.Format(time.RFC3339), nil, http.StatusOK)
}
