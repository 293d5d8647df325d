package build

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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

// The fetch tests run the real generator path, Build with outbound.NewClient and
// feed.Adapters, over five services of which one talks to a faulty server.
// Five probed services with one failure stay under the vantage rule, so the
// failure is recorded, not discarded.

// fetchVictim is the service whose feed and probe point at the fault.
const fetchVictim = "anthropic"

// fetchTimeout is opts.Timeout of the faulty cycle; fetchHang is the bound
// that catches a cycle that does not respect it, far above it on purpose.
// The timeout leaves the healthy services, and the faults that should fail
// fast with their own error (TLS, 50 MB), room on a loaded machine.
const (
	fetchTimeout = 2 * time.Second
	fetchHang    = 10 * time.Second
)

// fetchCatalog returns the first five services read by a registered
// Statuspage-style adapter and probed.
func fetchCatalog(t *testing.T) catalog.Catalog {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	var out catalog.Catalog
	for _, svc := range cat.Services {
		f := svc.Feed.Format
		if (f == catalog.FormatStatuspage || f == catalog.FormatIncidentIO) && svc.ProbeURL != "" && len(out.Services) < 5 {
			out.Services = append(out.Services, svc)
		}
	}
	if len(out.Services) != 5 || !slices.Contains(out.Slugs(), fetchVictim) {
		t.Fatalf("catalog picked %v", out.Slugs())
	}
	return out
}

// fetchRelease returns a channel closed when the test ends, before any server
// registered earlier is closed (cleanups run last-in first-out), so that a
// handler blocked on it lets httptest.Server.Close return.
func fetchRelease(t *testing.T) <-chan struct{} {
	ch := make(chan struct{})
	t.Cleanup(func() { close(ch) })
	return ch
}

func fetchServer(t *testing.T, h http.HandlerFunc) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// The faults. Each starts its fake and returns its base URL.

func hangingServer(t *testing.T) string {
	var done <-chan struct{}
	url := fetchServer(t, func(w http.ResponseWriter, r *http.Request) { <-done }) // never writes headers
	done = fetchRelease(t)
	return url
}

func tricklingServer(t *testing.T) string {
	var done <-chan struct{}
	url := fetchServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("{"))
		rc := http.NewResponseController(w)
		for rc.Flush() == nil {
			select {
			case <-done:
				return
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := w.Write([]byte(" ")); err != nil {
				return
			}
		}
	})
	done = fetchRelease(t)
	return url
}

func failingServer(t *testing.T) string {
	return fetchServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream connect error", http.StatusInternalServerError)
	})
}

func htmlServer(t *testing.T) string {
	return fetchServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><h1>Checking your browser</h1></body></html>")
	})
}

// hugeServer streams a 50 MB body from one reused 64 KiB buffer, stopping
// as soon as the client hangs up.
func hugeServer(t *testing.T) string {
	const size = 50 << 20
	chunk := bytes.Repeat([]byte(" "), 64<<10)
	return fetchServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(size))
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
}

func redirectLoopServer(t *testing.T) string {
	return fetchServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path, http.StatusFound)
	})
}

func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// untrustedTLSServer would serve a calm page, but over TLS with a
// certificate outbound.NewClient does not trust.
func untrustedTLSServer(t *testing.T) string {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, fetchCalmSummary)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL
}

const fetchCalmSummary = `{"status":{"indicator":"none"},"components":[{"name":"API","status":"operational"}],"incidents":[]}`

func TestFaultyServiceIsIsolated(t *testing.T) {
	t.Parallel()
	faults := []struct {
		name      string
		start     func(t *testing.T) string
		feedError string // in the victim's feed error
		probe     string // the victim's probe state
		// waits is set for the faults that last until the timeout: they run
		// in parallel, the others one by one, sparing the CPU they need.
		waits bool
	}{
		{"hangs without headers", hangingServer, "context deadline exceeded", api.ProbeFailed, true},
		// The probe times the headers, which arrive: the host is up.
		{"trickles a byte per 100 ms", tricklingServer, "context deadline exceeded", api.ProbeOK, true},
		// A 5xx from the API host is a failed probe: the host answers, but not as a working API.
		{"answers 500", failingServer, "HTTP 500", api.ProbeFailed, false},
		{"answers HTML", htmlServer, "a bot challenge or HTML page", api.ProbeOK, false},
		{"answers 50 MB", hugeServer, "larger than", api.ProbeOK, false},
		// A redirect is an answer: the probe does not follow it.
		{"redirects in a loop", redirectLoopServer, "stopped after 3 redirects", api.ProbeOK, false},
		{"closed port", closedPort, "connection refused", api.ProbeFailed, false},
		{"untrusted TLS certificate", untrustedTLSServer, "certificate", api.ProbeFailed, false},
	}
	for _, tt := range faults {
		t.Run(tt.name, func(t *testing.T) {
			if tt.waits {
				t.Parallel()
			}
			world := buildtest.NewWorld(t, fetchCatalog(t))
			clock := buildtest.NewClock(t0)
			opts := Options{
				Out:      filepath.Join(t.TempDir(), "public"),
				Site:     Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "aistatus test"},
				Catalog:  world.Catalog,
				Timeout:  10 * time.Second, // the good cycle is only the setup
				Client:   outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(world.Catalog)}),
				Now:      clock.Now,
				Log:      zerolog.Nop(),
				Adapters: feed.Adapters(),
			}
			if _, err := Build(context.Background(), opts); err != nil {
				t.Fatalf("good cycle: %v", err)
			}
			before, _, err := history.ReadHistory(opts.Out)
			if err != nil {
				t.Fatal(err)
			}

			clock.Advance(time.Minute)
			opts.Timeout = fetchTimeout
			base := tt.start(t)
			opts.Catalog = catalog.Catalog{Services: slices.Clone(world.Catalog.Services), ErrorCodes: world.Catalog.ErrorCodes}
			for i, svc := range opts.Catalog.Services {
				if svc.Slug == fetchVictim {
					svc.Feed.URL = base + "/api/v2/summary.json"
					svc.Feed.IncidentsURL = base + "/api/v2/incidents.json"
					svc.ProbeURL = base + "/v1/models"
					opts.Catalog.Services[i] = svc
				}
			}
			opts.Client = outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(opts.Catalog)})
			began := time.Now()
			res, err := Build(context.Background(), opts)
			if took := time.Since(began); took > fetchHang {
				t.Fatalf("faulty cycle took %s with a %s timeout", took, fetchTimeout)
			}
			if err != nil {
				t.Fatalf("faulty cycle: %v", err)
			}

			for _, svc := range opts.Catalog.Services {
				var doc api.ServiceDoc
				fetchReadJSON(t, opts.Out, snapshot.ServiceFile(svc.Slug), &doc)
				src := doc.Sources
				// One failed probe keeps the previous status: everyone stays operational.
				if res.Statuses[svc.Slug] != api.Operational || doc.Status != api.Operational {
					t.Errorf("%s: status %s (document %s), want operational", svc.Slug, res.Statuses[svc.Slug], doc.Status)
				}
				if svc.Slug != fetchVictim {
					if src.Feed.State != api.FeedOK || src.Probe.State != api.ProbeOK {
						t.Errorf("%s, a healthy service, has sources %+v", svc.Slug, src)
					}
					continue
				}
				if src.Feed.State != api.FeedError || !strings.Contains(src.Feed.Error, tt.feedError) {
					t.Errorf("victim feed = %+v, want state error mentioning %q", src.Feed, tt.feedError)
				}
				if src.Probe.State != tt.probe {
					t.Errorf("victim probe = %+v, want state %s", src.Probe, tt.probe)
				}
			}
			checkHistoryKept(t, opts.Out, before, opts.Catalog, clock.Now(), tt.probe == api.ProbeFailed)
		})
	}
}

// checkHistoryKept checks that history.json is valid and still holds the
// good cycle's bucket of every service, now credited with the minute up to
// the faulty cycle at now.
func checkHistoryKept(t *testing.T, out string, before *history.History, cat catalog.Catalog, now time.Time, victimProbeFailed bool) {
	t.Helper()
	after, _, err := history.ReadHistory(out)
	if err != nil {
		t.Fatalf("history after the faulty cycle: %v", err)
	}
	if after.Version != history.HistoryVersion || !after.UpdatedAt.Equal(now) || len(after.Incidents) != 0 {
		t.Errorf("history version %d, updated %s, %d incidents", after.Version, after.UpdatedAt, len(after.Incidents))
	}
	for _, svc := range cat.Services {
		b, a := before.Services[svc.Slug], after.Services[svc.Slug]
		if b == nil || a == nil || len(b.Buckets) != 1 {
			t.Errorf("%s: history before %+v, after %+v", svc.Slug, b, a)
			continue
		}
		if !b.LastChecked.Equal(t0) || !a.LastChecked.Equal(now) || a.LastStatus != api.Operational {
			t.Errorf("%s: last checked %s then %s (%s)", svc.Slug, b.LastChecked, a.LastChecked, a.LastStatus)
		}
		if len(a.Buckets) != 1 || a.Buckets[0].T != b.Buckets[0].T || a.Buckets[0].Operational != 60 ||
			a.Buckets[0].Probes < b.Buckets[0].Probes || a.Buckets[0].LatencyMs < b.Buckets[0].LatencyMs {
			t.Errorf("%s: buckets %+v, then %+v", svc.Slug, b.Buckets, a.Buckets)
		}
		wantFailed := 0
		if svc.Slug == fetchVictim && victimProbeFailed {
			wantFailed = 1
		}
		if a.FailedProbes != wantFailed || a.ProbeIncident != "" {
			t.Errorf("%s: %d failed probes, incident %q; want %d and none", svc.Slug, a.FailedProbes, a.ProbeIncident, wantFailed)
		}
	}
}

func fetchReadJSON(t *testing.T, dir, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}
