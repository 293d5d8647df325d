package feed

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// surfaceWant is what a read says of one surface: its status (or failure),
// the names of its components and the headlines of its incidents.
type surfaceWant struct {
	status     api.Status
	failure    api.FailureKind
	components []string
	incidents  []string
}

// TestRealSurfaces reads real captures through the embedded catalog's
// surfaces: each surface's status, components and incidents, by the same
// rules as the API's scope, and every document fetched once for the API
// and all the surfaces together.
func TestRealSurfaces(t *testing.T) {
	t.Parallel()
	anthropic := decodeDoc(t, realDoc(t, "statuspage-anthropic-20260729.json"))
	// The repro of issue 21: claude.ai and Claude Code down, the API up, an
	// incident linked to the two products only.
	appDown := edited(t, "statuspage-anthropic-20260729.json", func(doc jdoc) {
		setStatus(t, doc, "operational", "Claude API (api.anthropic.com)", "Claude Cowork")
		doc["incidents"] = []any{}
	})
	appIncident := spVariant(t, anthropic, "test0appdown", "claude.ai and Claude Code unavailable", "2026-07-29T19:00:00Z",
		spComponents(t, anthropic, "rwppv331jlwc", "yyzkbfz2thpt"))
	real := list(t, anthropic, "incidents")[0] // "Elevated errors across all models": claude.ai, API, Claude Code, Cowork

	openai := decodeDoc(t, realDoc(t, "incidentio-openai-20260722.json"))
	openaiIncidents := incidentsJSON(t,
		spVariant(t, openai, "01TESTCHATGPT0000000000000", "Increased ChatGPT latency", "2026-07-22T13:00:00Z", []any{}),
		spVariant(t, openai, "01TESTCODEX000000000000000", "Codex tasks failing", "2026-07-22T10:00:00Z", []any{}),
		spVariant(t, openai, "01TESTBOTH0000000000000000", "ChatGPT and Codex elevated errors", "2026-07-22T09:00:00Z", []any{}),
	)
	consumerDown := edited(t, "incidentio-openai-20260722.json", func(doc jdoc) {
		setStatus(t, doc, "full_outage", "Conversations", "Codex API")
	})
	chatgpt := []string{"Codex in ChatGPT Desktop", "Sites", "ChatGPT Work", "Login", "Conversations", "Compliance API",
		"Search", "GPTs", "Image Generation", "Connectors/Apps", "ChatGPT Atlas"}
	codex := []string{"Codex API", "VS Code extension"}

	xai := map[string]reply{"/feed.xml": {file: "real/rss-xai-20261007.xml"}}
	for _, tt := range []struct {
		name, slug string
		routes     map[string]reply
		want       map[catalog.SurfaceID]surfaceWant
		accept     string    // jsonAccept when ""
		now        time.Time // the capture's evening when zero
	}{
		{"anthropic: the app and the agent down, the API up", "anthropic",
			map[string]reply{spSummary: {body: appDown}, spIncidentsP: {body: incidentsJSON(t, appIncident)}},
			map[catalog.SurfaceID]surfaceWant{
				// claude.ai down, Cowork up: half the app.
				"app":     {api.PartialOutage, "", []string{"claude.ai", "Claude Cowork"}, []string{"claude.ai and Claude Code unavailable"}},
				"agent":   {api.MajorOutage, "", []string{"Claude Code"}, []string{"claude.ai and Claude Code unavailable"}},
				"console": {api.Operational, "", []string{"Claude Console (platform.claude.com)"}, nil},
			}, "", time.Time{}},
		{"anthropic: the real capture, one incident on every surface it links", "anthropic",
			map[string]reply{spSummary: {file: "real/statuspage-anthropic-20260729.json"}, spIncidentsP: {body: incidentsJSON(t, real)}},
			map[catalog.SurfaceID]surfaceWant{
				"app":     {api.MajorOutage, "", []string{"claude.ai", "Claude Cowork"}, []string{"Elevated errors across all models"}},
				"agent":   {api.MajorOutage, "", []string{"Claude Code"}, []string{"Elevated errors across all models"}},
				"console": {api.Operational, "", []string{"Claude Console (platform.claude.com)"}, nil},
			}, "", time.Time{}},
		{"openai: ChatGPT and Codex by id and by title", "openai",
			map[string]reply{spSummary: {body: consumerDown}, spComps: {body: consumerDown}, spIncidentsP: {body: openaiIncidents}},
			map[catalog.SurfaceID]surfaceWant{
				// 1 of 11 ChatGPT components down: the app is degraded (the
				// rollup's rule for pages of many components); 1 of 2 of
				// Codex's in major outage is a partial outage.
				"app":   {api.Degraded, "", chatgpt, []string{"Increased ChatGPT latency", "ChatGPT and Codex elevated errors"}},
				"agent": {api.PartialOutage, "", codex, []string{"Codex tasks failing", "ChatGPT and Codex elevated errors"}},
			}, "", time.Time{}},
		{"cohere: the Playground down is the console's", "cohere",
			map[string]reply{spSummary: {file: "real/incidentio-cohere-20260723.json"}, spIncidentsP: {body: incidentsJSON(t)}},
			map[catalog.SurfaceID]surfaceWant{
				"app": {api.Operational, "", []string{"Coral"}, nil},
				// The real incident "Dashboard Login Service Disruption",
				// out of the API's scope, is the console's.
				"console": {api.PartialOutage, "", []string{"Playground"}, []string{"Dashboard Login Service Disruption"}},
			}, "", time.Time{}},
		// xAI posts one event once per product under one guid: each surface
		// keeps its own items of it, by the product tag in the title, as one
		// incident naming the products it was posted for.
		{"xai: September, one event on every product", "xai", xai,
			map[catalog.SurfaceID]surfaceWant{
				"app":     {api.Operational, "", nil, []string{"[Grok (Android), grok.com, Grok in X, Grok (iOS), Grok (Office/Workspace Plugins)] Models outage"}},
				"agent":   {api.Operational, "", nil, []string{"[Grok (Build)] Models outage"}},
				"console": {api.Operational, "", nil, nil},
			}, rssAcceptTypes, time.Date(2026, 9, 4, 0, 0, 0, 0, time.UTC)},
		// The event's title names grok.com and Grok Build: every product's
		// item of it is in the app's and the agent's scope.
		{"xai: October, grok.com's own item and an API item naming it", "xai", xai,
			map[catalog.SurfaceID]surfaceWant{
				"app": {api.Operational, "", nil, []string{"[grok.com] grok.com",
					"[Global (api.x.ai), US (us.api.x.ai), Grok (Build), grok.com] Outages across API, Grok.com, and Grok Build",
					"[Grok (Android), grok.com, Grok in X, Grok (iOS), Grok (Office/Workspace Plugins)] Models outage"}},
				"agent": {api.Operational, "", nil, []string{"[Global (api.x.ai), US (us.api.x.ai), Grok (Build), grok.com] Outages across API, Grok.com, and Grok Build",
					"[Grok (Build)] Models outage"}},
				"console": {api.Operational, "", nil, nil},
			}, rssAcceptTypes, time.Date(2026, 10, 7, 1, 0, 0, 0, time.UTC)},
		{"a page that fails fails every surface, at the cost of one request", "anthropic",
			map[string]reply{spSummary: {code: http.StatusServiceUnavailable, body: []byte("down")}},
			map[catalog.SurfaceID]surfaceWant{
				"app":     {api.Unknown, api.FailureHTTP, nil, nil},
				"agent":   {api.Unknown, api.FailureHTTP, nil, nil},
				"console": {api.Unknown, api.FailureHTTP, nil, nil},
			}, "", time.Time{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, requests := serve(t, cmpOr(tt.accept, jsonAccept), tt.routes)
			svc := catalogService(t, tt.slug, srv)
			now := cmpOr(tt.now, time.Date(2026, 7, 29, 21, 0, 0, 0, time.UTC))
			req := Request{Client: Memo(&http.Client{Timeout: 10 * time.Second}), Service: svc, Now: now}
			a := Adapters()[svc.Feed.Format]
			Read(context.Background(), a, req) //nolint:errcheck // the API's read is TestRealScope*'s
			got := ReadSurfaces(context.Background(), a, req)
			var ids []catalog.SurfaceID
			for _, r := range got {
				ids = append(ids, r.ID)
				w := tt.want[r.ID]
				var comps, heads []string
				for _, c := range r.Components {
					comps = append(comps, c.Name)
				}
				for _, inc := range r.Incidents {
					heads = append(heads, inc.Headline)
				}
				var failure api.FailureKind
				if r.Err != nil {
					failure = Kind(r.Err)
				}
				if r.Status != w.status || failure != w.failure || !slices.Equal(comps, w.components) || !slices.Equal(heads, w.incidents) {
					t.Errorf("%s: status %s, failure %q, components %q, incidents %q;\nwant %+v", r.ID, r.Status, failure, comps, heads, w)
				}
			}
			if len(ids) != len(tt.want) {
				t.Errorf("surfaces %v, want %d", ids, len(tt.want))
			}
			for path := range tt.routes {
				if n := requests(path); n != 1 {
					t.Errorf("%s requested %d times, want once for the API and every surface", path, n)
				}
			}
		})
	}
}

// TestMemo: a memo client makes one request per URL and Accept, answers the
// repeats (the failure too) from memory with the same status, headers and
// body, and passes other methods through.
func TestMemo(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("X-Test", "kept")
		w.WriteHeader(http.StatusTeapot)
		w.Write([]byte(r.Method + " " + r.URL.Path))
	}))
	t.Cleanup(srv.Close)
	client := Memo(srv.Client())
	for range 3 {
		data, header, err := fetch(context.Background(), client, srv.URL+"/a", "application/json")
		var he *httpError
		if !errors.As(err, &he) || he.Code != http.StatusTeapot || data != nil || header != nil {
			t.Fatalf("fetch: %v", err)
		}
	}
	resp, err := client.Get(srv.URL + "/a")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if hits.Load() != 2 || resp.StatusCode != http.StatusTeapot || resp.Header.Get("X-Test") != "kept" {
		t.Errorf("%d requests (want 2: one per Accept), status %d, header %q", hits.Load(), resp.StatusCode, resp.Header.Get("X-Test"))
	}
	if resp, err := client.Head(srv.URL + "/a"); err != nil || resp.StatusCode != http.StatusTeapot || hits.Load() != 3 {
		t.Errorf("HEAD is not remembered: %v, %d requests", err, hits.Load())
	}
	down := Memo(&http.Client{Timeout: time.Second})
	url := "http://" + freeLoopback(t) + "/"
	_, _, err1 := fetch(context.Background(), down, url, "application/json")
	_, _, err2 := fetch(context.Background(), down, url, "application/json")
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Errorf("a failed request is remembered: %v / %v", err1, err2)
	}
}

// freeLoopback is a loopback address nobody listens on.
func freeLoopback(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.Listener.Addr().String()
	srv.Close()
	return addr
}

// BenchmarkReadSurfaces is the cost of a service's surfaces on top of its
// API's read: the same documents (fetched once, through Memo) parsed again
// per surface. OpenAI's real summary, with its two surfaces.
func BenchmarkReadSurfaces(b *testing.B) {
	data := realDoc(b, "incidentio-openai-20260722.json")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == spIncidentsP {
			w.Write([]byte(`{"incidents":[]}`))
			return
		}
		w.Write(data)
	}))
	b.Cleanup(srv.Close)
	cat, err := catalog.Default()
	if err != nil {
		b.Fatal(err)
	}
	svc, _ := cat.Lookup("openai")
	svc.Feed.URL, svc.Feed.ComponentsURL, svc.Feed.IncidentsURL = srv.URL+spSummary, srv.URL+spComps, srv.URL+spIncidentsP
	a := Adapters()[svc.Feed.Format]
	for _, bc := range []struct {
		name     string
		surfaces bool
	}{{"api only", false}, {"api and surfaces", true}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				req := Request{Client: Memo(srv.Client()), Service: svc, Now: time.Date(2026, 7, 22, 15, 0, 0, 0, time.UTC)}
				if _, _, err := Read(context.Background(), a, req); err != nil {
					b.Fatal(err)
				}
				if bc.surfaces {
					for _, r := range ReadSurfaces(context.Background(), a, req) {
						if r.Err != nil {
							b.Fatal(r.Err)
						}
					}
				}
			}
		})
	}
}

// withComponent adds to a capture's components a copy of the one called
// like, renamed name with id id and in status: a component of the page that
// the capture's rotating subset left out.
func withComponent(t *testing.T, doc jdoc, like, id, name, status string) {
	t.Helper()
	for _, c := range list(t, doc, "components") {
		if c["name"] == like {
			added := maps.Clone(c)
			added["id"], added["name"], added["status"] = id, name, status
			doc["components"] = append(doc["components"].([]any), added)
			return
		}
	}
	t.Fatalf("no component %q to copy", like)
}

// TestRealPlacements: a component of a real capture in trouble moves the
// surface it belongs to, and only that one. Each case is a real capture
// with every component operational and no incident, but those it names.
func TestRealPlacements(t *testing.T) {
	t.Parallel()
	calm := func(name string, f func(doc jdoc)) []byte {
		return edited(t, name, func(doc jdoc) {
			for _, c := range list(t, doc, "components") {
				c["status"] = "operational"
			}
			doc["incidents"] = []any{}
			f(doc)
		})
	}
	const openai, anthropic = "incidentio-openai-20260722.json", "statuspage-anthropic-20260729.json"
	for _, tt := range []struct {
		name, slug string
		doc        []byte
		want       map[catalog.SurfaceID]api.Status
	}{
		// The capture's summary lists 25 of the page's components; Sora,
		// Voice mode and File uploads are ChatGPT's, placed by name.
		{"openai: only Sora in major outage", "openai", calm(openai, func(doc jdoc) {
			withComponent(t, doc, "Conversations", "01TESTSORA0000000000000000", "Sora", "major_outage")
		}), map[catalog.SurfaceID]api.Status{"api": api.Operational, "app": api.Degraded, "agent": api.Operational}},
		{"openai: only Voice mode in partial outage", "openai", calm(openai, func(doc jdoc) {
			withComponent(t, doc, "Conversations", "01TESTVOICE000000000000000", "Voice mode", "partial_outage")
		}), map[catalog.SurfaceID]api.Status{"api": api.Operational, "app": api.Degraded, "agent": api.Operational}},
		{"openai: only File uploads in major outage", "openai", calm(openai, func(doc jdoc) {
			withComponent(t, doc, "Conversations", "01TESTFILES000000000000000", "File uploads", "major_outage")
		}), map[catalog.SurfaceID]api.Status{"api": api.Operational, "app": api.Degraded, "agent": api.Operational}},
		// Codex running in the ChatGPT desktop app is the app's: a ChatGPT
		// incident does not take the coding agent down.
		{"openai: only Codex in ChatGPT Desktop in partial outage", "openai", calm(openai, func(doc jdoc) {
			setStatus(t, doc, "partial_outage", "Codex in ChatGPT Desktop")
		}), map[catalog.SurfaceID]api.Status{"api": api.Operational, "app": api.Degraded, "agent": api.Operational}},
		{"openai: only Codex API in major outage", "openai", calm(openai, func(doc jdoc) {
			setStatus(t, doc, "major_outage", "Codex API")
		}), map[catalog.SurfaceID]api.Status{"api": api.Operational, "app": api.Operational, "agent": api.PartialOutage}},
		// Cowork, the agent for knowledge work in the Claude desktop app,
		// is the app's.
		{"anthropic: only Claude Cowork in major outage", "anthropic", calm(anthropic, func(doc jdoc) {
			setStatus(t, doc, "major_outage", "Claude Cowork")
		}), map[catalog.SurfaceID]api.Status{"api": api.Operational, "app": api.PartialOutage, "agent": api.Operational, "console": api.Operational}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := serve(t, jsonAccept, map[string]reply{
				spSummary: {body: tt.doc}, spComps: {body: tt.doc}, spIncidentsP: {body: incidentsJSON(t)},
			})
			svc := catalogService(t, tt.slug, srv)
			req := Request{Client: Memo(&http.Client{Timeout: 10 * time.Second}), Service: svc, Now: time.Date(2026, 7, 29, 21, 0, 0, 0, time.UTC)}
			a := Adapters()[svc.Feed.Format]
			obs, _, err := Read(context.Background(), a, req)
			if err != nil {
				t.Fatal(err)
			}
			got := map[catalog.SurfaceID]api.Status{"api": obs.Status}
			for _, r := range ReadSurfaces(context.Background(), a, req) {
				if r.Err != nil {
					t.Fatalf("%s: %v", r.ID, r.Err)
				}
				got[r.ID] = r.Status
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
