// Package buildtest is a loopback fake of the outside world for tests: the
// status pages and API hosts of every service in a catalog, served by one
// httptest server whose state a test scripts cycle by cycle.
package buildtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aistatus/aistatus/snapshot"
)

// Page is the scripted state of one service's status page and API host.
type Page struct {
	// Indicator is the Statuspage page indicator: none, minor, major, critical, maintenance.
	Indicator string
	// Component is the status of the page's one component (operational,
	// degraded_performance, partial_outage, major_outage, under_maintenance).
	Component string
	Incidents []Incident
	// FeedBroken makes the status page answer 500.
	FeedBroken bool
	// APIDown makes the API host drop connections, so probes fail.
	APIDown bool
}

// Incident is one incident as a Statuspage feed lists it.
type Incident struct {
	ID, Name, Impact string
	StartedAt        time.Time
	ResolvedAt       *time.Time
}

// World serves every service of a catalog on one loopback server.
type World struct {
	Server *httptest.Server
	// Catalog is the input catalog with every feed and probe URL pointed at
	// Server; feeds of every format are served as Statuspage documents.
	Catalog snapshot.Catalog

	mu     sync.Mutex
	pages  map[string]*Page
	probes map[string]int
}

// NewWorld starts a world in which every service of cat is calm. The server
// is closed when the test ends.
func NewWorld(t testing.TB, cat snapshot.Catalog) *World {
	w := &World{pages: map[string]*Page{}, probes: map[string]int{}}
	w.Server = httptest.NewServer(http.HandlerFunc(w.serveHTTP))
	t.Cleanup(w.Server.Close)
	for _, svc := range cat.Services {
		w.pages[svc.Slug] = &Page{Indicator: "none", Component: "operational"}
		base := w.Server.URL + "/" + svc.Slug
		svc.Feed.URL = base + "/api/v2/summary.json"
		if svc.Feed.Format == snapshot.FormatStatuspage || svc.Feed.Format == snapshot.FormatIncidentIO {
			svc.Feed.IncidentsURL = base + "/api/v2/incidents.json"
		} else {
			svc.Feed.IncidentsURL = ""
		}
		svc.Feed.Filter = nil
		if svc.ProbeURL != "" {
			svc.ProbeURL = base + "/probe"
		}
		w.Catalog.Services = append(w.Catalog.Services, svc)
	}
	return w
}

// Set changes the state of one service's page.
func (w *World) Set(slug string, change func(p *Page)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	change(w.pages[slug])
}

// SetAll changes the state of every page.
func (w *World) SetAll(change func(p *Page)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.pages {
		change(p)
	}
}

// Probes returns how many probe requests the API host of slug received.
func (w *World) Probes(slug string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.probes[slug]
}

func (w *World) serveHTTP(rw http.ResponseWriter, r *http.Request) {
	slug, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	w.mu.Lock()
	page, ok := w.pages[slug]
	var p Page
	if ok {
		p = *page
		if rest == "probe" {
			w.probes[slug]++
		}
	}
	w.mu.Unlock()
	if !ok {
		http.NotFound(rw, r)
		return
	}
	switch rest {
	case "probe":
		if p.APIDown {
			dropConnection(rw)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(http.StatusUnauthorized) // a healthy API refusing an unauthenticated call
		fmt.Fprintln(rw, `{"error":"missing api key"}`)
	case "api/v2/summary.json", "api/v2/incidents.json":
		if p.FeedBroken {
			http.Error(rw, "upstream error", http.StatusInternalServerError)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		json.NewEncoder(rw).Encode(p.document(slug, rest == "api/v2/summary.json"))
	default:
		http.NotFound(rw, r)
	}
}

// document renders the page as summary.json (unresolved incidents only) or
// incidents.json (all of them).
func (p Page) document(slug string, summary bool) map[string]any {
	var incidents []map[string]any
	for _, inc := range p.Incidents {
		if summary && inc.ResolvedAt != nil {
			continue
		}
		status := "investigating"
		if inc.ResolvedAt != nil {
			status = "resolved"
		}
		incidents = append(incidents, map[string]any{
			"id": inc.ID, "name": inc.Name, "status": status, "impact": inc.Impact,
			"created_at": inc.StartedAt, "started_at": inc.StartedAt, "updated_at": inc.StartedAt,
			"resolved_at": inc.ResolvedAt, "shortlink": "https://stspg.io/" + inc.ID,
		})
	}
	if incidents == nil {
		incidents = []map[string]any{}
	}
	doc := map[string]any{
		"page":      map[string]any{"id": slug, "name": slug, "url": "https://status.example/" + slug},
		"incidents": incidents,
	}
	if summary {
		doc["status"] = map[string]any{"indicator": p.Indicator, "description": p.Indicator}
		doc["components"] = []map[string]any{{"id": slug + "-api", "name": "API", "status": p.Component, "group": false}}
	}
	return doc
}

// dropConnection closes the connection without an answer, as a host that is
// down behind a load balancer does.
func dropConnection(rw http.ResponseWriter) {
	if hj, ok := rw.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}
