package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/serve"
	"github.com/aistatus/aistatus/snapshot"
)

// TestServeOrigin runs serve --origin against a static host of a built
// snapshot, as a replica behind a load balancer does: it loads the site,
// serves the API from it, reports itself ready, and follows a new publish.
func TestServeOrigin(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site")
	publish := func(at time.Time) { publishSite(t, cat, site, at) }
	first := time.Now().UTC().Truncate(time.Second)
	publish(first)
	origin := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer origin.Close()

	addr := freeAddr(t)
	out := startCommand(t, "serve", "--origin", origin.URL, "--addr", addr, "--poll", "100ms")
	base := "http://" + addr
	waitFor(t, base+snapshot.PathReadyz)
	var h serve.Health
	get(t, base+snapshot.PathReadyz).decode(t, &h)
	if h.Source.Kind != "origin" || !strings.HasPrefix(h.Source.Location, origin.URL) || h.Snapshot == nil || !h.Snapshot.GeneratedAt.Equal(first) {
		t.Fatalf("/readyz: %+v", h)
	}
	var status api.StatusDoc
	get(t, base+snapshot.PathStatus).decode(t, &status)
	if len(status.Services) != len(cat.Services) || !status.Timestamp.Equal(first) {
		t.Fatalf("status from the replica: %d services at %v", len(status.Services), status.Timestamp)
	}

	second := first.Add(time.Minute)
	publish(second)
	deadline := time.Now().Add(10 * time.Second)
	for {
		get(t, base+snapshot.PathStatus).decode(t, &status)
		if status.Timestamp.Equal(second) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica never took the new snapshot: %s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// publishSite builds a snapshot of cat generated at at, with no history,
// and publishes it to site.
func publishSite(t *testing.T, cat catalog.Catalog, site string, at time.Time) {
	t.Helper()
	files, err := build.Render(build.Site{BaseURL: "https://aistatus.example", StaleAfter: time.Hour, Generator: "test"},
		cat, history.New(), nil, at)
	if err != nil {
		t.Fatal(err)
	}
	if err := snapshot.Publish(site, files); err != nil {
		t.Fatal(err)
	}
}

// TestServeOriginMaxSetBytes: --max-set-bytes caps the files of a snapshot
// a replica takes, and is a positive number of bytes.
func TestServeOriginMaxSetBytes(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site")
	publishSite(t, cat, site, time.Now().UTC().Truncate(time.Second))
	origin := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer origin.Close()
	for _, value := range []string{"0", "-1"} {
		code, out := aistatus(context.Background(), "serve", "--origin", origin.URL, "--max-set-bytes", value, "--addr", freeAddr(t))
		if code == 0 || !strings.Contains(out, "--max-set-bytes "+value+": give a positive number of bytes") {
			t.Errorf("--max-set-bytes %s: exit %d: %s", value, code, out)
		}
	}

	addr := freeAddr(t)
	out := startCommand(t, "serve", "--origin", origin.URL, "--addr", addr, "--poll", "100ms", "--max-set-bytes", "1000")
	waitFor(t, "http://"+addr+snapshot.PathHealthz) // listening
	deadline := time.Now().Add(30 * time.Second)
	for {
		var h serve.Health
		get(t, "http://"+addr+snapshot.PathHealthz).decode(t, &h)
		if h.Snapshot != nil {
			t.Fatalf("a replica capped at 1000 bytes took a snapshot of %d files", len(cat.Services))
		}
		if strings.Contains(h.Source.LastError, "over the cap of 1000 bytes") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica never reported the cap: %+v\n%s", h.Source, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestServeDirAndOriginExclusive: a replica reads one source.
func TestServeDirAndOriginExclusive(t *testing.T) {
	t.Parallel()
	code, out := aistatus(context.Background(), "serve", "--dir", t.TempDir(), "--origin", "https://example.com", "--addr", freeAddr(t))
	if code == 0 || !strings.Contains(out, "origin") {
		t.Errorf("serve --dir --origin: exit %d: %s", code, out)
	}
	code, out = aistatus(context.Background(), "serve", "--origin", "ftp://example.com", "--addr", freeAddr(t))
	if code == 0 || !strings.Contains(out, "not an http(s) URL") {
		t.Errorf("serve --origin ftp://: exit %d: %s", code, out)
	}
}
