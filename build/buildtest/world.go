// Package buildtest is a loopback fake of the outside world for tests: the
// status pages and API hosts of every service in a catalog, served by one
// httptest server whose state a test scripts cycle by cycle. Each service's
// page is served in its catalog feed format, written by the format's fake
// page (feed.Formats), so every adapter is exercised.
package buildtest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/snapshot"
)

// Page is the scripted state of one service's status page and API host.
type Page struct {
	// Status is what the official page declares.
	Status snapshot.Status
	// Incidents are listed by the Statuspage-family formats (statuspage,
	// incidentio); the other formats express Status only.
	Incidents []Incident
	// FeedBroken makes the status page answer 500.
	FeedBroken bool
	// APIDown makes the API host drop connections, so probes fail.
	APIDown bool
	// DropProbes drops the connection of that many next probes (a lost
	// packet), then answers again.
	DropProbes int
	// CompletionStatus is what the completion endpoint answers: 0 streams
	// a short answer in the service's style; another status sends a real
	// error body of the provider's with it (529: overloaded).
	CompletionStatus int
}

// Incident is one incident as a Statuspage feed lists it.
type Incident = feed.FakeIncident

// World serves every service of a catalog on one loopback server.
type World struct {
	Server *httptest.Server
	// Catalog is the input catalog with every feed and probe URL pointed at
	// Server.
	Catalog snapshot.Catalog
	// Clock dates what the pages publish ("10 minutes ago"); it is the
	// wall clock unless a test sets its own, as it must when its builds run
	// on a fake clock.
	Clock func() time.Time

	mu      sync.Mutex
	pages   map[string]*Page
	formats map[string]snapshot.FeedFormat
	probes  map[string]int
	// completions are the completion requests each service received.
	completions map[string][]*http.Request
	styles      map[string]snapshot.CompletionStyle
}

// NewWorld starts a world in which every service of cat is calm. The server
// is closed when the test ends.
func NewWorld(t testing.TB, cat snapshot.Catalog) *World {
	w := &World{pages: map[string]*Page{}, formats: map[string]snapshot.FeedFormat{}, probes: map[string]int{},
		completions: map[string][]*http.Request{}, styles: map[string]snapshot.CompletionStyle{}, Clock: time.Now}
	w.Server = httptest.NewServer(http.HandlerFunc(w.serveHTTP))
	t.Cleanup(w.Server.Close)
	w.Catalog.ErrorCodes = cat.ErrorCodes
	for _, svc := range cat.Services {
		w.pages[svc.Slug] = &Page{Status: snapshot.Operational}
		w.formats[svc.Slug] = svc.Feed.Format
		base := w.Server.URL + "/" + svc.Slug
		if svc.Feed.Format != snapshot.FormatNone {
			svc.Feed.URL = base + "/feed"
		}
		if svc.Feed.IncidentsURL != "" {
			svc.Feed.IncidentsURL = base + "/incidents"
		}
		svc.Feed.Scope, svc.Feed.ComponentsURL = snapshot.Scope{}, ""
		if svc.ProbeURL != "" {
			svc.ProbeURL = base + "/probe"
		}
		if svc.Completion != nil {
			c := *svc.Completion
			c.URL, svc.Completion = base+"/"+completePath, &c
			w.styles[svc.Slug] = c.Style
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
		p.Incidents = append([]Incident(nil), page.Incidents...)
		if rest == "probe" {
			w.probes[slug]++
			if page.DropProbes > 0 {
				page.DropProbes--
				p.APIDown = true
			}
		}
		if strings.HasPrefix(rest, completePath) {
			w.completions[slug] = append(w.completions[slug], r.Clone(context.WithoutCancel(r.Context())))
		}
	}
	style := w.styles[slug]
	id := w.formats[slug]
	w.mu.Unlock()
	format, _ := feed.Lookup(id)
	if !ok {
		http.NotFound(rw, r)
		return
	}
	switch {
	case strings.HasPrefix(rest, completePath) && p.APIDown:
		dropConnection(rw)
	case strings.HasPrefix(rest, completePath):
		serveCompletion(rw, style, p.CompletionStatus)
	case rest == "probe" && p.APIDown:
		dropConnection(rw)
	case rest == "probe":
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(http.StatusUnauthorized) // a healthy API refusing an unauthenticated call
		fmt.Fprintln(rw, `{"error":"missing api key"}`)
	case (rest == "feed" || rest == "incidents") && p.FeedBroken:
		http.Error(rw, "upstream error", http.StatusInternalServerError)
	case (rest == "feed" || rest == "incidents") && format.Fake != nil:
		body, contentType := format.Fake(feed.FakePage{Slug: slug, Status: p.Status, Incidents: p.Incidents, List: rest == "incidents", Now: w.Clock()})
		rw.Header().Set("Content-Type", contentType)
		rw.Write(body)
	default:
		http.NotFound(rw, r)
	}
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
