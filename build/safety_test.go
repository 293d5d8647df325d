package build

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// probeOnlyCatalog is a one-service catalog whose probe answers from a
// loopback server and which has no feed: the smallest real build.
func probeOnlyCatalog(t *testing.T) snapshot.Catalog {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	return snapshot.Catalog{Services: []snapshot.Service{{
		Slug: "solo", Name: "Solo", Category: "llm", Domain: "solo.example", URL: "https://solo.example",
		ProbeURL: srv.URL + "/v1/models",
		Feed:     snapshot.Feed{Format: snapshot.FormatNone},
	}}}
}

func probeOnlyOptions(t *testing.T, out string, cat snapshot.Catalog, now func() time.Time) Options {
	return Options{
		Out:     out,
		Site:    Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "aistatus test"},
		Catalog: cat,
		Timeout: 5 * time.Second,
		Client:  NewClient(),
		Now:     now,
		Log:     zerolog.Nop(),
	}
}

// probesRecorded counts the successful probes the history holds for slug:
// every build adds exactly one, so a lost cycle shows as a missing count.
func probesRecorded(t *testing.T, out, slug string) int {
	t.Helper()
	h, _, err := snapshot.ReadHistory(out)
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
