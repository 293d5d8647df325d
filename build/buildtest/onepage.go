package buildtest

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aistatus/aistatus/catalog"
)

// OnePage is a loopback fake of one service's status page, for builds of
// a catalog of that service alone: every feed document of its entry is
// the page served (a summary.json also serves as the components and
// incidents lists), and the service is not probed.
type OnePage struct {
	// Catalog is the default catalog's entry of the service, alone,
	// pointed at the fake.
	Catalog catalog.Catalog

	mu   sync.Mutex
	page []byte
}

// NewOnePage serves page as the status page of the default catalog's
// service slug until Serve changes it; the server closes with t.
func NewOnePage(t testing.TB, slug string, page []byte) *OnePage {
	t.Helper()
	def, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	svc, ok := def.Lookup(slug)
	if !ok {
		t.Fatalf("%s is not in the catalog", slug)
	}
	p := &OnePage{page: page}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		body := p.page
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	svc.Feed.URL = srv.URL + "/api/v2/summary.json"
	if svc.Feed.ComponentsURL != "" {
		svc.Feed.ComponentsURL = srv.URL + "/api/v2/components.json"
	}
	if svc.Feed.IncidentsURL != "" {
		svc.Feed.IncidentsURL = srv.URL + "/api/v2/incidents.json"
	}
	svc.ProbeURL, svc.Completion = "", nil
	p.Catalog = catalog.Catalog{Services: []catalog.Service{svc}}
	return p
}

// Serve has the page serve page from now on.
func (p *OnePage) Serve(page []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.page = page
}
