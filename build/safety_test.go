package build

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/outbound"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// probeOnlyCatalog is a one-service catalog whose probe answers from a
// loopback server and which has no feed: the smallest real build.
func probeOnlyCatalog(t *testing.T) catalog.Catalog {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	return catalog.Catalog{Services: []catalog.Service{{
		Slug: "solo", Name: "Solo", Category: "llm", Domain: "solo.example", URL: "https://solo.example",
		ProbeURL: srv.URL + "/v1/models",
		Feed:     catalog.Feed{Format: catalog.FormatNone},
	}}}
}

func probeOnlyOptions(t *testing.T, out string, cat catalog.Catalog, now func() time.Time) Options {
	return Options{
		Out:     out,
		Site:    Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "aistatus test"},
		Catalog: cat,
		Timeout: 5 * time.Second,
		Client:  outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(cat)}),
		Now:     now,
		Log:     zerolog.Nop(),
	}
}

// probesRecorded counts the successful probes the history holds for slug:
// every build adds exactly one, so a lost cycle shows as a missing count.
func probesRecorded(t *testing.T, out, slug string) int {
	t.Helper()
	h, _, err := history.ReadHistory(out)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if sh := h.Services[slug]; sh != nil {
		for _, b := range sh.Buckets {
			n += b.Probes
		}
	}
	return n
}

// TestConcurrentBuildsLoseNoCycle runs overlapping builds on one folder, as
// `aistatus run` plus a manual `aistatus build` do: each must read the
// history the previous one published, so every cycle is recorded.
func TestConcurrentBuildsLoseNoCycle(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the folder lock is flock(2), Linux only")
	}
	cat := probeOnlyCatalog(t)
	out := filepath.Join(t.TempDir(), "public")
	var (
		mu    sync.Mutex
		clock = t0
	)
	// Each build reads a later time, so that the history's checks are
	// distinct and in order whatever the interleaving.
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(time.Second)
		return clock
	}
	const builds, parallel = 24, 8
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	errs := make(chan error, builds)
	for range builds {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if _, err := Build(context.Background(), probeOnlyOptions(t, out, cat, now)); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := probesRecorded(t, out, "solo"); got != builds {
		t.Fatalf("history records %d of %d builds: %d cycles lost", got, builds, builds-got)
	}
}

// TestBuildSetsAsideUnusableHistory: a history from the future (a build ran
// with its clock ahead) or holding values no build writes is set aside as
// history.corrupt-*, and the build starts afresh instead of freezing the
// data or failing every cycle.
func TestBuildSetsAsideUnusableHistory(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		mutate  func(h *history.History, now time.Time)
		corrupt bool
	}{
		{"updatedAt a day ahead", func(h *history.History, now time.Time) {
			h.UpdatedAt = now.Add(24 * time.Hour)
		}, true},
		{"lastChecked a day ahead", func(h *history.History, now time.Time) {
			h.Services["solo"].LastChecked = now.Add(24 * time.Hour)
		}, true},
		{"a bucket a day ahead", func(h *history.History, now time.Time) {
			sh := h.Services["solo"]
			sh.Buckets = append(sh.Buckets, history.Bucket{T: now.Add(24 * time.Hour).Truncate(time.Hour).Unix(), Operational: 60})
		}, true},
		{"a whole build a day ahead", func(h *history.History, now time.Time) {
			sh := h.Services["solo"]
			h.UpdatedAt, sh.LastChecked = now.Add(24*time.Hour), now.Add(24*time.Hour)
			sh.Buckets = append(sh.Buckets, history.Bucket{T: now.Add(24 * time.Hour).Truncate(time.Hour).Unix(), Operational: 60, Probes: 1, LatencyMs: 5})
		}, true},
		{"status time that overflows", func(h *history.History, _ time.Time) {
			b := &h.Services["solo"].Buckets[0]
			b.Operational, b.Major = math.MaxFloat64, math.MaxFloat64
		}, true},
		{"latency that overflows", func(h *history.History, _ time.Time) {
			h.Services["solo"].Buckets[0].LatencyMs = math.MaxFloat64
		}, true},
		{"negative status time", func(h *history.History, _ time.Time) {
			h.Services["solo"].Buckets[0].Major = -3600
		}, true},
		{"negative probe count", func(h *history.History, _ time.Time) {
			h.Services["solo"].Buckets[0].Probes = -5
		}, true},
		{"negative failed probes", func(h *history.History, _ time.Time) {
			h.Services["solo"].FailedProbes = -1
		}, true},
		{"a minute ahead is clock skew, not corruption", func(h *history.History, now time.Time) {
			h.UpdatedAt = now.Add(time.Minute)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := probeOnlyCatalog(t)
			out := filepath.Join(t.TempDir(), "public")
			clock := buildtest.NewClock(t0)
			opts := probeOnlyOptions(t, out, cat, clock.Now)
			if _, err := Build(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Minute)
			h, _, err := history.ReadHistory(out)
			if err != nil {
				t.Fatal(err)
			}
			tt.mutate(h, clock.Now())
			bad, err := json.Marshal(h)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(out, snapshot.FileHistory), bad, 0o644); err != nil {
				t.Fatal(err)
			}

			if _, err := Build(context.Background(), opts); err != nil {
				t.Fatalf("build on that history: %v", err)
			}
			kept, err := os.ReadFile(filepath.Join(out, snapshot.CorruptHistoryName(clock.Now())))
			if tt.corrupt && (err != nil || !bytes.Equal(kept, bad)) {
				t.Fatalf("history not set aside: %v", err)
			}
			if !tt.corrupt && err == nil {
				t.Fatal("a usable history was set aside")
			}
			after, _, err := history.ReadHistory(out)
			if err != nil {
				t.Fatalf("new history unreadable: %v", err)
			}
			if err := after.CheckClock(clock.Now()); err != nil {
				t.Fatalf("new history: %v", err)
			}
			// The data moves again: this cycle is the latest check.
			if got := after.Services["solo"].LastChecked; !got.Equal(clock.Now()) {
				t.Errorf("lastChecked = %s, want %s", got, clock.Now())
			}
		})
	}
}

// TestBuildRefusesFeedRedirectOffCatalog runs the redirect policy through a
// whole build: the service whose feed redirects to an internal host the
// catalog does not name reads as a feed error, and the probe still decides:
// the host answers, which alone is unknown.
func TestBuildRefusesFeedRedirectOffCatalog(t *testing.T) {
	t.Parallel()
	var unlistedHits atomic.Int32
	unlisted := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		unlistedHits.Add(1)
		io.WriteString(w, fetchCalmSummary)
	}))
	t.Cleanup(unlisted.Close)
	origin := httptest.NewServer(http.RedirectHandler(unlisted.URL+"/api/v2/summary.json", http.StatusFound))
	t.Cleanup(origin.Close)
	cat := probeOnlyCatalog(t)
	cat.Services[0].Feed = catalog.Feed{Format: catalog.FormatStatuspage, URL: origin.URL + "/api/v2/summary.json"}
	out := filepath.Join(t.TempDir(), "public")
	opts := probeOnlyOptions(t, out, cat, (buildtest.NewClock(t0)).Now)
	opts.Adapters = feed.Adapters()
	res, err := Build(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, out: out}
	doc := h.service("solo")
	if doc.Sources.Feed.State != api.FeedError || !strings.Contains(doc.Sources.Feed.Error, "loopback address not allowed") {
		t.Errorf("feed = %+v; want an error refusing the redirect", doc.Sources.Feed)
	}
	if res.Statuses["solo"] != api.Unknown || unlistedHits.Load() != 0 {
		t.Errorf("status %s, %d requests to the unlisted host", res.Statuses["solo"], unlistedHits.Load())
	}
}
