package outbound

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aistatus/aistatus/catalog"
)

// TestNewClient checks what every outbound request sends and takes: a
// User-Agent naming aistatus (unless the caller set one), gzip accepted and
// decoded, and at most three redirects.
func TestNewClient(t *testing.T) {
	t.Parallel()
	var (
		mu     sync.Mutex
		agents []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents = append(agents, r.Header.Get("User-Agent"))
		mu.Unlock()
		// /hop/N redirects N more times; /loop forever.
		if n, ok := strings.CutPrefix(r.URL.Path, "/hop/"); ok && n != "0" {
			left, _ := strconv.Atoi(n)
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", left-1), http.StatusFound)
			return
		}
		if r.URL.Path == "/loop" {
			http.Redirect(w, r, "/loop", http.StatusMovedPermanently)
			return
		}
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			http.Error(w, "gzip only", http.StatusNotAcceptable)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		io.WriteString(zw, "ok")
		zw.Close()
	}))
	t.Cleanup(srv.Close)
	client := NewClient(Options{AllowedURLs: []string{srv.URL}})

	tests := []struct {
		name     string
		path     string
		agent    string   // the caller's User-Agent; "" sets none
		wantErr  string   // "" for a read of "ok"
		wantSent []string // the User-Agents the server saw, one a request
	}{
		{"gzip-encoded answer, decoded", "/", "", "", []string{UserAgent}},
		{"three redirects are followed", "/hop/3", "", "", []string{UserAgent, UserAgent, UserAgent, UserAgent}},
		{"the fourth redirect is not", "/loop", "", "stopped after 3 redirects", []string{UserAgent, UserAgent, UserAgent, UserAgent}},
		{"a caller's own User-Agent is kept", "/", "probe/2", "", []string{"probe/2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			agents = nil
			mu.Unlock()
			req, err := http.NewRequest(http.MethodGet, srv.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.agent != "" {
				req.Header.Set("User-Agent", tt.agent)
			}
			body, err := do(client, req)
			switch {
			case tt.wantErr == "" && (err != nil || body != "ok"):
				t.Errorf("GET %s = %q, %v; want ok", tt.path, body, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("GET %s error = %v; want one saying %q", tt.path, err, tt.wantErr)
			}
			mu.Lock()
			defer mu.Unlock()
			if strings.Join(agents, "|") != strings.Join(tt.wantSent, "|") {
				t.Errorf("User-Agents sent %q, want %q", agents, tt.wantSent)
			}
		})
	}
	if !strings.HasPrefix(UserAgent, "aistatus/") {
		t.Errorf("User-Agent %q does not name aistatus", UserAgent)
	}
}

func TestCatalogURLs(t *testing.T) {
	t.Parallel()
	cat := catalog.Catalog{Services: []catalog.Service{
		{Slug: "a", ProbeURL: "https://api.a.example/v1", Feed: catalog.Feed{URL: "https://status.a.example/summary.json"},
			Surfaces: []catalog.Surface{{ID: catalog.SurfaceApp, ProbeURL: "https://chat.a.example/"}, {ID: catalog.SurfaceAgent}}},
		{Slug: "b", Feed: catalog.Feed{URL: "https://status.b.example/rss", IncidentsURL: "https://status.b.example/incidents", ComponentsURL: "https://status.b.example/components"}},
		{Slug: "c"},
	}}
	cat.Models.Lifecycle = []catalog.LifecyclePage{{ID: "a-deprecations", Enabled: true, URL: "https://docs.a.example/deprecations.md"},
		{ID: "b-deprecations", URL: "https://docs.b.example/deprecations.md"}}
	want := []string{
		"https://status.a.example/summary.json", "https://api.a.example/v1", "https://chat.a.example/",
		"https://status.b.example/rss", "https://status.b.example/incidents", "https://status.b.example/components",
		"https://docs.a.example/deprecations.md",
	}
	if got := CatalogURLs(cat); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("CatalogURLs = %q, want %q", got, want)
	}
}
