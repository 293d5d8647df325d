// Package buildtest is a loopback fake of the outside world for tests: the
// status pages and API hosts of every service in a catalog, served by one
// httptest server whose state a test scripts cycle by cycle. Each service's
// page is served in its catalog feed format, written by the format's fake
// page (feed.Formats), so every adapter is exercised.
package buildtest

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/models"
)

// Page is the scripted state of one service's status page and API host.
type Page struct {
	// Status is what the official page declares.
	Status api.Status
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
	// CompletionBody, when set, is answered instead, with CompletionStatus
	// (0: 200, as a stream): what a provider's answer may carry that no
	// real capture does (a key echoed back as a code).
	CompletionBody string
}

// Incident is one incident as a Statuspage feed lists it.
type Incident = feed.FakeIncident

// World serves every service of a catalog on one loopback server.
type World struct {
	Server *httptest.Server
	// Catalog is the input catalog with every feed and probe URL (a
	// surface's own host's too) pointed at Server.
	Catalog catalog.Catalog
	// Clock dates what the pages publish ("10 minutes ago"); it is the
	// wall clock unless a test sets its own, as it must when its builds run
	// on a fake clock.
	Clock func() time.Time

	mu    sync.Mutex
	pages map[string]*Page
	// gateway holds the model gateways' scripted documents, by gateway
	// id, then model id.
	gateway map[string]map[string]string
	// modelList is OpenRouter's scripted model list ("": a 404), and
	// listRequests counts the requests for each gateway's list.
	modelList    string
	listRequests map[string]int
	// gatewayLists are one gateway's own model lists, by gateway id,
	// served in place of the shared one: a second gateway (Vercel's)
	// answers in its own shape.
	gatewayLists map[string]string
	// makerPages are the makers' scripted deprecation pages, by the
	// catalog's id of the page ("": a 404), and pageRequests count the
	// requests for each.
	makerPages   map[string]string
	pageRequests map[string]int
	formats      map[string]catalog.FeedFormat
	probes       map[string]int
	// completions are the completion requests each service received.
	completions map[string][]*http.Request
	styles      map[string]catalog.CompletionStyle
}

// NewWorld starts a world in which every service of cat is calm. The server
// is closed when the test ends.
func NewWorld(t testing.TB, cat catalog.Catalog) *World {
	w := &World{pages: map[string]*Page{}, gateway: map[string]map[string]string{}, formats: map[string]catalog.FeedFormat{}, probes: map[string]int{},
		makerPages: map[string]string{}, pageRequests: map[string]int{}, gatewayLists: map[string]string{}, listRequests: map[string]int{},
		completions: map[string][]*http.Request{}, styles: map[string]catalog.CompletionStyle{}, Clock: time.Now}
	w.Server = httptest.NewServer(http.HandlerFunc(w.serveHTTP))
	t.Cleanup(w.Server.Close)
	w.Catalog.ErrorCodes = cat.ErrorCodes
	// The gateways answer from the world too: a model with no scripted
	// document (SetModel) is a 404, which reads unknown.
	w.Catalog.Models.Pinned, w.Catalog.Models.Makers = cat.Models.Pinned, cat.Models.Makers
	for _, g := range cat.Models.Gateways {
		g.URL = w.Server.URL + "/" + gatewayPrefix + g.ID + "/" + catalog.ModelParam
		if g.ListURL != "" {
			g.ListURL = w.Server.URL + "/" + gatewayPrefix + g.ID + "/" + modelListPath
		}
		w.Catalog.Models.Gateways = append(w.Catalog.Models.Gateways, g)
		w.gateway[g.ID] = map[string]string{}
	}
	// So do the makers' deprecation pages: a page with nothing scripted
	// (SetMakerPage) is a 404, which fails only that source.
	for _, p := range cat.Models.Lifecycle {
		p.URL = w.Server.URL + "/" + makerPrefix + p.ID
		w.Catalog.Models.Lifecycle = append(w.Catalog.Models.Lifecycle, p)
	}
	for _, svc := range cat.Services {
		w.pages[svc.Slug] = &Page{Status: api.Operational}
		w.formats[svc.Slug] = svc.Feed.Format
		base := w.Server.URL + "/" + svc.Slug
		if svc.Feed.Format != catalog.FormatNone {
			svc.Feed.URL = base + "/feed"
		}
		if svc.Feed.IncidentsURL != "" {
			svc.Feed.IncidentsURL = base + "/incidents"
		}
		svc.Feed.Scope, svc.Feed.ComponentsURL = catalog.Scope{}, ""
		if svc.ProbeURL != "" {
			svc.ProbeURL = base + "/probe"
		}
		svc.Surfaces = slices.Clone(svc.Surfaces)
		for i, sf := range svc.Surfaces {
			if sf.ProbeURL != "" {
				svc.Surfaces[i].ProbeURL = base + "/" + surfaceHost + string(sf.ID)
			}
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

// gatewayPrefix starts the world's paths of a model gateway; no slug
// starts with it.
const gatewayPrefix = "_gateway-"

// surfaceHost starts the path, under a service's, of a surface's own host
// (claude.ai), which /check probes.
const surfaceHost = "host/"

// SetModel scripts the document OpenRouter serves for a model, as written
// (its shape: the real captures in build/feed/testdata); "" takes it away
// (a 404). Another gateway's is its own (SetGatewayModel, SetServedBy).
func (w *World) SetModel(id, body string) {
	w.SetGatewayModel(catalog.GatewayOpenRouter, id, body)
}

// SetServedBy scripts each gateway's document of a model served by each
// of providers (the gateway's names of them), fully up, in the gateway's
// own shape: its row's fake (models.Gateways).
func (w *World) SetServedBy(id string, providers ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for gid, docs := range w.gateway {
		row, ok := models.LookupGateway(gid)
		if !ok {
			panic("buildtest: gateway " + gid + " has no row in models.Gateways")
		}
		docs[id] = string(row.FakeEndpoints(id, providers))
	}
}

// SetGatewayModel scripts the document the gateway of that id serves for
// a model, in place of SetModel's (Vercel's endpoints document: the real
// captures in build/feed/testdata/real, or documents made from them); ""
// takes it away (a 404, whatever SetModel says).
func (w *World) SetGatewayModel(gateway, id, body string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gateway[gateway] == nil {
		w.gateway[gateway] = map[string]string{}
	}
	w.gateway[gateway][id] = body
}

// SetGatewayModelList scripts the model list the gateway of that id serves,
// in place of SetModelList's; "" takes it away (a 404). It answers a
// request carrying its ETag with 304 Not Modified, and counts in
// GatewayListRequests. A gateway other than OpenRouter with nothing
// scripted is a 404, as its documents are: the world serves no gateway it
// is not told to, and its models read unknown from it.
func (w *World) SetGatewayModelList(gateway, body string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gatewayLists[gateway] = body
}

// makerPrefix starts the world's path of a maker's deprecation page; no
// slug starts with it.
const makerPrefix = "_maker-"

// SetMakerPage scripts the document the maker's deprecation page of that
// id serves (the real captures in build/feed/testdata/real, or documents
// made from them); "" takes it away (a 404). It answers a request
// carrying its ETag with 304 Not Modified.
func (w *World) SetMakerPage(id, body string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.makerPages[id] = body
}

// MakerPageRequests returns how many requests the page of that id received.
func (w *World) MakerPageRequests(id string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pageRequests[id]
}

// modelListPath is the world's path of a gateway's model list, after its
// prefix: no model id is one segment.
const modelListPath = "models"

// SetModelList scripts OpenRouter's model list (its shape: the real
// capture in build/feed/testdata/real, or a document made from it); ""
// takes it away (a 404). The list answers a request carrying its ETag with
// 304 Not Modified, as OpenRouter's does.
func (w *World) SetModelList(body string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.modelList = body
}

// ModelListRequests returns how many requests OpenRouter's model list
// received.
func (w *World) ModelListRequests() int {
	return w.GatewayListRequests(catalog.GatewayOpenRouter)
}

// GatewayListRequests returns how many requests the model list of the
// gateway of that id received.
func (w *World) GatewayListRequests(gateway string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.listRequests[gateway]
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
	if id, ok := strings.CutPrefix(slug, makerPrefix); ok && rest == "" {
		w.mu.Lock()
		body := w.makerPages[id]
		w.pageRequests[id]++
		w.mu.Unlock()
		serveVersioned(rw, r, body, "text/markdown; charset=utf-8")
		return
	}
	gateway, isGateway := strings.CutPrefix(slug, gatewayPrefix)
	if isGateway && rest == modelListPath {
		w.mu.Lock()
		body, own := w.gatewayLists[gateway]
		if !own && gateway == catalog.GatewayOpenRouter {
			body = w.modelList
		}
		w.listRequests[gateway]++
		w.mu.Unlock()
		serveVersioned(rw, r, body, "application/json")
		return
	}
	if isGateway {
		w.mu.Lock()
		body := w.gateway[gateway][strings.TrimSuffix(rest, "/endpoints")]
		w.mu.Unlock()
		if body == "" {
			http.NotFound(rw, r)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		fmt.Fprint(rw, body)
		return
	}
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
		serveCompletion(rw, style, p.CompletionStatus, p.CompletionBody)
	case rest == "probe" && p.APIDown:
		dropConnection(rw)
	case rest == "probe":
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(http.StatusUnauthorized) // a healthy API refusing an unauthenticated call
		fmt.Fprintln(rw, `{"error":"missing api key"}`)
	case strings.HasPrefix(rest, surfaceHost):
		// What claude.ai and chatgpt.com answer a client without cookies:
		// a bot challenge.
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		rw.WriteHeader(http.StatusForbidden)
		fmt.Fprintln(rw, "<!DOCTYPE html><title>Just a moment...</title>")
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

// serveVersioned answers body with an ETag of its content, and 304 Not
// Modified to a request carrying it; "" is a 404.
func serveVersioned(rw http.ResponseWriter, r *http.Request, body, contentType string) {
	if body == "" {
		http.NotFound(rw, r)
		return
	}
	etag := fmt.Sprintf(`W/"%x"`, sha256.Sum256([]byte(body)))
	if r.Header.Get("If-None-Match") == etag {
		rw.WriteHeader(http.StatusNotModified)
		return
	}
	rw.Header().Set("ETag", etag)
	rw.Header().Set("Content-Type", contentType)
	fmt.Fprint(rw, body)
}

// dropConnection closes the connection without an answer, as a host that is
// down behind a load balancer does.
func dropConnection(rw http.ResponseWriter) {
	if hj, ok := rw.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			// A few bytes that are no HTTP answer, then the close: a
			// connection closed before any byte of an answer is one Go's
			// client retries by itself when it was reused (from an earlier
			// request of the cycle to this host), and the "lost" request
			// would silently succeed — a flaky test under load.
			conn.Write([]byte("\x00\r\n"))
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}
