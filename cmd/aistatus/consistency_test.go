package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/build/site"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/models/modelstest"
	"github.com/aistatus/aistatus/outbound"
	"github.com/aistatus/aistatus/serve"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
	"golang.org/x/net/html"
)

// TestOutputsSayOneTruth runs Anthropic's real page through full builds in
// a matrix of situations and asks every output what it says of each
// subject (the API and each surface): the service document, status.json,
// the Statuspage façade, /metrics, the change log, and, through the thin
// server on the same snapshot, /check and the statusline. Each must say
// the status the page gives that subject, and the page's card must name a
// surface exactly when one is worse than the API. An output that derives
// its own answer (the statusline that printed the service's status for
// claude.ai) fails here. The situation must say the same of each subject,
// and every output agree with it (agreeWithSituation).
func TestOutputsSayOneTruth(t *testing.T) {
	t.Parallel()
	real, err := os.ReadFile(filepath.Join("..", "..", "build", "feed", "testdata", "real", "statuspage-anthropic-20260729.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The capture's components, by the subject whose scope holds them.
	components := map[string]string{
		"k8w3r06qmzrp": "anthropic", "rwppv331jlwc": "anthropic/app", "bpp5gb3hpjcl": "anthropic/app",
		"yyzkbfz2thpt": "anthropic/agent", "0qbwn08sd68x": "anthropic/console",
	}
	page := func(statuses map[string]string) []byte {
		return buildtest.ComponentsVariant(t, real, func(id, _ string) string {
			if st, ok := statuses[components[id]]; ok {
				return st
			}
			return "operational"
		})
	}
	// What /check and the statusline are asked for each subject.
	queries := map[string]string{
		"anthropic": "anthropic", "anthropic/app": "claude.ai", "anthropic/agent": "claude code",
		"anthropic/console": "platform.claude.com",
	}
	for _, tc := range []struct {
		name string
		page []byte
		want map[string]api.Status
	}{
		{"calm", page(nil), map[string]api.Status{
			"anthropic": api.Operational, "anthropic/app": api.Operational, "anthropic/agent": api.Operational, "anthropic/console": api.Operational}},
		{"claude.ai and Claude Code down, the API up", page(map[string]string{"anthropic/app": "major_outage", "anthropic/agent": "major_outage"}),
			map[string]api.Status{"anthropic": api.Operational, "anthropic/app": api.MajorOutage, "anthropic/agent": api.MajorOutage, "anthropic/console": api.Operational}},
		{"the API down, the surfaces up", page(map[string]string{"anthropic": "major_outage"}),
			map[string]api.Status{"anthropic": api.MajorOutage, "anthropic/app": api.Operational, "anthropic/agent": api.Operational, "anthropic/console": api.Operational}},
		{"the console degraded", page(map[string]string{"anthropic/console": "degraded_performance"}),
			map[string]api.Status{"anthropic": api.Operational, "anthropic/app": api.Operational, "anthropic/agent": api.Operational, "anthropic/console": api.Degraded}},
		{"a partial outage of the app", page(map[string]string{"anthropic/app": "partial_outage"}),
			map[string]api.Status{"anthropic": api.Operational, "anthropic/app": api.PartialOutage, "anthropic/agent": api.Operational, "anthropic/console": api.Operational}},
		// The page's last word stands in for a while (rule 4, DecideStatus),
		// the API's and each surface's alike.
		{"the page unreadable", []byte("<html>a challenge page</html>"),
			map[string]api.Status{"anthropic": api.Operational, "anthropic/app": api.Operational, "anthropic/agent": api.Operational, "anthropic/console": api.Operational}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newPageBuilds(t, "anthropic", page(nil))
			b.cycle(build.Completions{}) // a calm first build: the change log then has transitions to show
			b.page.Serve(tc.page)
			b.cycle(build.Completions{})
			o := readOutputs(t, b)
			for subject, want := range tc.want {
				said := map[string]api.Status{
					"service document": o.serviceDoc[subject],
					"status.json":      o.statusJSON[subject],
					"/metrics":         o.metrics[subject],
					"/check":           o.check(subject, queries[subject]),
				}
				if last, ok := o.changes[subject]; ok {
					said["the change log's last transition"] = last
				}
				for output, got := range said {
					if got != want {
						t.Errorf("%s: %s says %q, want %q", subject, output, got, want)
					}
				}
				// The façade speaks Statuspage's words, in which unknown
				// and degraded are both degraded_performance.
				if got, w := o.facade[subject], facadeWords[want]; got != w {
					t.Errorf("%s: the façade says %q, want %q", subject, got, w)
				}
				if line := o.statusline(queries[subject]); !strings.HasSuffix(line, " "+statuslineWords[want]) {
					t.Errorf("%s: the statusline says %q, want it to end in %q", subject, line, statuslineWords[want])
				}
			}
			// The card names the worst surface when one is worse than the
			// API, and only then.
			var worse []string
			for subject, st := range tc.want {
				if subject != "anthropic" && api.Troubled(st) && api.Worse(st, tc.want["anthropic"]) == st && st != tc.want["anthropic"] {
					worse = append(worse, subject)
				}
			}
			if (o.card != "") != (len(worse) > 0) {
				t.Errorf("the card's worst surface is %q, with %v worse than the API", o.card, worse)
			}
			said := o.agreeWithSituation(queries)
			for subject, want := range tc.want {
				if said[subject] != want {
					t.Errorf("%s: the situation says %q, want %q", subject, said[subject], want)
				}
			}
		})
	}
}

// facadeWords are the Statuspage v2 component statuses the façade gives
// each status (docs/api.md: unknown is degraded_performance, the mildest
// that is not operational).
var facadeWords = map[api.Status]string{
	api.Operational: "operational", api.Degraded: "degraded_performance", api.PartialOutage: "partial_outage",
	api.MajorOutage: "major_outage", api.Maintenance: "under_maintenance", api.Unknown: "degraded_performance",
}

// statuslineWords are the statusline's words for a status.
var statuslineWords = map[api.Status]string{
	api.Operational: "up", api.Degraded: "degraded", api.PartialOutage: "partial outage",
	api.MajorOutage: "major outage", api.Maintenance: "maintenance", api.Unknown: "unknown",
}

// outputs are what each output of one snapshot says, by subject id.
type outputs struct {
	serviceDoc, statusJSON, metrics, changes map[string]api.Status
	// models and modelMetrics are models.json's and /metrics' status of
	// each watched model, by subject id.
	models, modelMetrics map[string]api.Status
	// facade is each façade's component group's status, and indicator
	// each façade's page indicator, by slug.
	facade, indicator map[string]string
	card              string
	// situation is the snapshot's situation.json; tracked are the slugs of
	// the catalog it was built with.
	situation api.Situation
	tracked   map[string]bool
	handler   http.Handler
	t         *testing.T
}

func readOutputs(t *testing.T, b *builds) outputs {
	t.Helper()
	o := outputs{serviceDoc: map[string]api.Status{}, statusJSON: map[string]api.Status{}, metrics: map[string]api.Status{},
		changes: map[string]api.Status{}, models: map[string]api.Status{}, modelMetrics: map[string]api.Status{},
		facade: map[string]string{}, indicator: map[string]string{}, tracked: map[string]bool{}, t: t}
	read := func(name string, v any) { t.Helper(); readJSON(t, filepath.Join(b.out, name), v) }
	read(snapshot.FileSituation, &o.situation)
	for _, svc := range b.cat.Services {
		o.tracked[svc.Slug] = true
		var doc api.ServiceDoc
		read(snapshot.ServiceFile(svc.Slug), &doc)
		for _, sf := range doc.Surfaces {
			o.serviceDoc[api.SubjectID(doc.Slug, sf.ID)] = sf.Status
		}
		var summary struct {
			Status     struct{ Indicator string }    `json:"status"`
			Components []struct{ ID, Status string } `json:"components"`
		}
		read(site.StatuspageDir(svc.Slug)+"/summary.json", &summary)
		for _, c := range summary.Components {
			o.facade[c.ID] = c.Status
		}
		o.indicator[svc.Slug] = summary.Status.Indicator
	}
	var status api.StatusDoc
	read(snapshot.FileStatus, &status)
	for _, sum := range status.Services {
		for _, sf := range sum.Surfaces {
			o.statusJSON[api.SubjectID(sum.Slug, sf.ID)] = sf.Status
		}
	}
	var models api.ModelsDoc
	read(snapshot.FileModels, &models)
	for _, m := range models.Models {
		o.models[api.ModelSubjectID(m.ID)] = m.Status
	}
	metrics, err := os.ReadFile(filepath.Join(b.out, snapshot.FileMetrics))
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^(aistatus_surface_status|aistatus_model_status)\{([^}]*)\} 1$`)
	label := regexp.MustCompile(`(\w+)="([^"]*)"`)
	for _, m := range line.FindAllStringSubmatch(string(metrics), -1) {
		labels := map[string]string{}
		for _, l := range label.FindAllStringSubmatch(m[2], -1) {
			labels[l[1]] = l[2]
		}
		if m[1] == "aistatus_model_status" {
			o.modelMetrics[api.ModelSubjectID(labels["model"])] = api.Status(labels["status"])
			continue
		}
		o.metrics[api.SubjectID(labels["service"], catalog.SurfaceID(labels["surface"]))] = api.Status(labels["status"])
	}
	var changes api.ChangeList
	read(snapshot.FileChanges, &changes)
	for _, c := range changes.Changes {
		if c.Type == api.ChangeStatus || c.Type == api.ChangeSurfaceStatus {
			o.changes[c.Subject()] = c.NewStatus
		}
	}
	index, err := os.ReadFile(filepath.Join(b.out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	root, err := html.Parse(strings.NewReader(string(index)))
	if err != nil {
		t.Fatal(err)
	}
	o.card = buildtest.NodeText(root, "worst-surface")

	srv := serve.New(serve.Options{Dir: b.out, Catalog: b.cat, Log: zerolog.Nop(), Now: b.clock.Now, Client: &http.Client{Timeout: 5 * time.Second}})
	if ok, err := srv.Store().Reload(); !ok || err != nil {
		t.Fatalf("serve the snapshot: %v %v", ok, err)
	}
	o.handler = srv.Handler()
	return o
}

func (o outputs) get(path string) *httptest.ResponseRecorder {
	o.t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.RemoteAddr = "192.0.2.1:1234"
	rec := httptest.NewRecorder()
	o.handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		o.t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	return rec
}

// check is /check's status for q, which must name subject.
func (o outputs) check(subject, q string) api.Status {
	o.t.Helper()
	var doc api.CheckDoc
	if err := json.Unmarshal(o.get(snapshot.PathCheck+"?q="+url.QueryEscape(q)).Body.Bytes(), &doc); err != nil {
		o.t.Fatal(err)
	}
	got := ""
	if doc.Service != nil && doc.Surface != nil {
		got = doc.Service.Slug
		if doc.Surface.ID != catalog.SurfaceAPI {
			got += "/" + string(doc.Surface.ID)
		}
	}
	if got != subject || doc.Status == nil {
		o.t.Fatalf("/check?q=%s answers for %q (status %v), want %s", q, got, doc.Status, subject)
	}
	return *doc.Status
}

func (o outputs) statusline(q string) string {
	o.t.Helper()
	return strings.TrimSpace(o.get(snapshot.PathStatusline + "?q=" + url.QueryEscape(q)).Body.String())
}

// TestOutputsSayOneTruthOfAModel is the same question of a watched model,
// on Cohere's real page, whose components stand for its models: with
// Command A's component in each status, the model's document, models.json,
// /metrics, the change log, the models page, /check and the statusline
// must each say the model's status the page gives it.
func TestOutputsSayOneTruthOfAModel(t *testing.T) {
	t.Parallel()
	real, err := os.ReadFile(filepath.Join("..", "..", "build", "feed", "testdata", "real", "incidentio-cohere-20260723.json"))
	if err != nil {
		t.Fatal(err)
	}
	const model, component, query = "cohere/command-a", "01JPJY4Y5P9N4AYA7FXXKQ71FA", "command a"
	def, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	md, ok := def.Models.Lookup(model)
	if !ok {
		t.Fatalf("%s is not a pinned model", model)
	}
	for _, tc := range []struct {
		component string // Command A's component on the page
		want      api.Status
	}{
		{"operational", api.Operational},
		{"degraded_performance", api.Degraded},
		{"partial_outage", api.PartialOutage},
		{"major_outage", api.MajorOutage},
	} {
		t.Run(tc.component, func(t *testing.T) {
			t.Parallel()
			page := func(status string) []byte {
				return buildtest.ComponentsVariant(t, real, func(id, _ string) string {
					if id == component {
						return status
					}
					return "operational"
				})
			}
			b := newPageBuilds(t, "cohere", page("operational"))
			b.cat.Models.Pinned = []catalog.Model{md}
			b.cycle(build.Completions{})
			b.page.Serve(page(tc.component))
			b.cycle(build.Completions{})
			o := readOutputs(t, b)

			said := map[string]api.Status{}
			var doc api.ModelDoc
			b.read(snapshot.ModelFile(model), &doc)
			said["the model's document"] = doc.Status
			var models api.ModelsDoc
			b.read(snapshot.FileModels, &models)
			for _, m := range models.Models {
				if m.ID == model {
					said["models.json"] = m.Status
				}
			}
			metrics, err := os.ReadFile(filepath.Join(b.out, snapshot.FileMetrics))
			if err != nil {
				t.Fatal(err)
			}
			line := regexp.MustCompile(`(?m)^aistatus_model_status\{model="` + regexp.QuoteMeta(model) + `",status="([a-z_]+)"\} 1$`)
			if m := line.FindStringSubmatch(string(metrics)); m != nil {
				said["/metrics"] = api.Status(m[1])
			}
			var changes api.ChangeList
			b.read(snapshot.FileChanges, &changes)
			for _, c := range changes.Changes {
				if c.Type == api.ChangeModelStatus && c.Model != nil && c.Model.ID == model {
					said["the change log's last transition"] = c.NewStatus
				}
			}
			var check api.CheckDoc
			if err := json.Unmarshal(o.get(snapshot.PathCheck+"?q="+url.QueryEscape(query)).Body.Bytes(), &check); err != nil {
				t.Fatal(err)
			}
			if check.Model == nil || check.Model.ID != model || check.Status == nil {
				t.Fatalf("/check?q=%s does not answer for %s: %+v", query, model, check.Model)
			}
			said["/check"] = *check.Status
			for _, output := range []string{"the model's document", "models.json", "/metrics", "/check"} {
				if got, ok := said[output]; !ok || got != tc.want {
					t.Errorf("%s says %q, want %q", output, got, tc.want)
				}
			}
			if got, ok := said["the change log's last transition"]; (tc.want != api.Operational) != ok || ok && got != tc.want {
				t.Errorf("the change log's last transition is %q (logged: %v), want %q", got, ok, tc.want)
			}
			if line := o.statusline(query); !strings.HasSuffix(line, " "+statuslineWords[tc.want]) {
				t.Errorf("the statusline says %q, want it to end in %q", line, statuslineWords[tc.want])
			}
			modelsPage, err := os.ReadFile(filepath.Join(b.out, site.FileModelsPage))
			if err != nil {
				t.Fatal(err)
			}
			root, err := html.Parse(strings.NewReader(string(modelsPage)))
			if err != nil {
				t.Fatal(err)
			}
			if row := modelRowText(root, model); !strings.Contains(row, tc.want.Label()) {
				t.Errorf("the models page's row %q does not say %q", row, tc.want.Label())
			}
			if said := o.agreeWithSituation(nil); said["model:"+model] != tc.want || said["model:"+model+"@cohere"] != tc.want {
				t.Errorf("the situation says %s is %q, at cohere %q, want %q", model, said["model:"+model], said["model:"+model+"@cohere"], tc.want)
			}
		})
	}
}

// modelRowText is the text of the models page's row of the model.
func modelRowText(n *html.Node, id string) string {
	return buildtest.TextOf(n, func(n *html.Node) bool {
		return slices.ContainsFunc(n.Attr, func(a html.Attribute) bool { return a.Key == "data-model" && a.Val == id })
	})
}

// facadeRank orders statuses as the façade's indicator weighs them (an
// unknown API above operational, below any trouble; an unknown surface not
// at all), and indicatorWords are its indicator for the worst (docs/api.md,
// the Statuspage façade).
var (
	facadeRank     = map[api.Status]int{api.Operational: 0, api.Unknown: 1, api.Maintenance: 2, api.Degraded: 3, api.PartialOutage: 4, api.MajorOutage: 5}
	indicatorWords = map[api.Status]string{api.Operational: "none", api.Unknown: "minor", api.Maintenance: "maintenance",
		api.Degraded: "minor", api.PartialOutage: "major", api.MajorOutage: "critical"}
)

// agreeWithSituation fails the test for every subject of the snapshot's
// situation of which an output says another status: for a service's API
// and its other surfaces, status.json, the service document, /metrics and
// the façade's group, and /check and the statusline where queries (or, for
// the API, the slug) name it; for a model, models.json and /metrics; for a
// model at a service, /check of the model there. Each façade's indicator
// must be the worst of its service's subjects that it shows. It returns the situation's
// statuses by subject id.
func (o outputs) agreeWithSituation(queries map[string]string) map[string]api.Status {
	t := o.t
	t.Helper()
	said := map[string]api.Status{}
	worst := map[string]api.Status{}
	for _, sub := range o.situation.Subjects {
		said[sub.ID] = sub.Status
		got := map[string]api.Status{}
		switch sub.Kind {
		case api.SubjectService, api.SubjectSurface:
			got["status.json"], got["the service document"], got["/metrics"] = o.statusJSON[sub.ID], o.serviceDoc[sub.ID], o.metrics[sub.ID]
			q := queries[sub.ID]
			if q == "" && sub.Kind == api.SubjectService {
				q = sub.Service
			}
			if q != "" {
				got["/check"] = o.check(sub.ID, q)
				if line := o.statusline(q); !strings.HasSuffix(line, " "+statuslineWords[sub.Status]) {
					t.Errorf("%s: the statusline says %q, the situation %s", sub.ID, line, sub.Status)
				}
			}
			// A surface other than the API is left out of the façade,
			// and of its indicator, while its status is unknown.
			facade := facadeWords[sub.Status]
			if sub.Kind == api.SubjectSurface && sub.Status == api.Unknown {
				facade = ""
			}
			if f := o.facade[sub.ID]; f != facade {
				t.Errorf("%s: the façade says %q, the situation %s", sub.ID, f, sub.Status)
			}
			if w, ok := worst[sub.Service]; facade != "" && (!ok || facadeRank[sub.Status] > facadeRank[w]) {
				worst[sub.Service] = sub.Status
			}
		case api.SubjectModel:
			got["models.json"], got["/metrics"] = o.models[sub.ID], o.modelMetrics[sub.ID]
		case api.SubjectModelProvider:
			// A catalog cut to a few services keeps the models' status-page
			// components at the others, which /check does not know.
			if o.tracked[sub.Service] {
				got["/check"] = o.checkModel(sub.Service, sub.Model)
			}
		default:
			t.Errorf("%s: kind %q", sub.ID, sub.Kind)
		}
		for output, st := range got {
			if st != sub.Status {
				t.Errorf("%s: %s says %q, the situation %q", sub.ID, output, st, sub.Status)
			}
		}
	}
	for slug, w := range worst {
		if got := o.indicator[slug]; got != indicatorWords[w] {
			t.Errorf("%s: the façade's indicator is %q, want %q for the worst of its subjects (%s)", slug, got, indicatorWords[w], w)
		}
	}
	return said
}

// checkModel is /check's status of model at the service slug.
func (o outputs) checkModel(slug, model string) api.Status {
	o.t.Helper()
	var doc api.CheckDoc
	q := url.Values{"q": {slug}, "model": {model}}
	if err := json.Unmarshal(o.get(snapshot.PathCheck+"?"+q.Encode()).Body.Bytes(), &doc); err != nil {
		o.t.Fatal(err)
	}
	if doc.Service == nil || doc.Service.Slug != slug || doc.Model == nil || doc.Model.ID != model {
		o.t.Fatalf("/check?%s answers for %+v, %+v", q.Encode(), doc.Service, doc.Model)
	}
	return doc.Model.Status
}

// TestOutputsSayTheSituation builds the situations the page tests above do
// not reach, on the fake world with the default catalog cut to the
// services each needs, and asks every output of every subject what the
// situation says of it: a model down at one provider and up at another, our
// completions failing while the page says operational, and a service with
// neither a page nor a probe.
func TestOutputsSayTheSituation(t *testing.T) {
	t.Parallel()
	def, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	only := func(slugs ...string) catalog.Catalog {
		cat := def
		cat.Services = slices.DeleteFunc(slices.Clone(def.Services), func(s catalog.Service) bool { return !slices.Contains(slugs, s.Slug) })
		return cat
	}
	keys := build.Completions{Keys: map[string]string{"OPENAI_API_KEY": openAIKey}}
	for _, tc := range []struct {
		name string
		cat  catalog.Catalog
		run  func(t *testing.T, h *builds)
		want map[string]api.Status
		// measured names a subject that must carry our completions' figures.
		measured string
	}{
		{"a model down at Anthropic, up on Bedrock", only("anthropic", "aws-bedrock", "google-gemini"), func(t *testing.T, h *builds) {
			h.world.SetModel(sonnet, modelstest.SplitWith(t, filepath.Join("..", "..", modelstest.SplitFixture), 5, func(_ int, ep map[string]any) {
				if ep["provider_name"] == "Anthropic" {
					ep["uptime_last_5m"] = 30.0
				}
			}))
			h.cycle(build.Completions{})
		}, map[string]api.Status{
			"model:" + sonnet: api.Operational, "model:" + sonnet + "@anthropic": api.MajorOutage,
			"model:" + sonnet + "@aws-bedrock": api.Operational, "anthropic": api.Operational,
		}, ""},
		{"our completions fail while the page says operational", only("openai"), func(t *testing.T, h *builds) {
			h.cycle(keys)
			h.world.Set("openai", func(p *buildtest.Page) { p.CompletionStatus = 529 })
			h.cycle(keys)
		}, map[string]api.Status{"openai": api.Degraded, "model:openai/gpt-4o-mini@openai": api.Degraded}, "model:openai/gpt-4o-mini@openai"},
		{"no page, no probe", func() catalog.Catalog {
			cat := only("anthropic")
			cat.Services[0].Feed = catalog.Feed{Format: catalog.FormatNone, Note: "No page, for the test."}
			cat.Services[0].ProbeURL = ""
			return cat
		}(), func(t *testing.T, h *builds) {
			h.cycle(build.Completions{})
			h.cycle(build.Completions{})
		}, map[string]api.Status{"anthropic": api.Unknown, "anthropic/app": api.Unknown, "anthropic/agent": api.Unknown,
			"anthropic/console": api.Unknown}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newWorldBuilds(t, tc.cat)
			tc.run(t, h)
			o := readOutputs(t, h)
			said := o.agreeWithSituation(nil)
			for id, want := range tc.want {
				if got, ok := said[id]; !ok || got != want {
					t.Errorf("the situation says %s is %q (listed: %v), want %q", id, got, ok, want)
				}
			}
			if tc.measured != "" {
				sub, _ := o.situation.Subject(tc.measured)
				if m := sub.Measured; m == nil || m.Samples == 0 || m.ErrorRate == nil || *m.ErrorRate == 0 {
					t.Errorf("%s: measured figures %+v, want the hour's failures", tc.measured, m)
				}
			}
		})
	}
}

// TestOutputsSayTheCrowdSurge is the matrix's crowd surge with a green
// page: Anthropic's real page all operational, and callers on ten networks
// reporting 529s through /check?error= to a server that has counted since
// before this hour yesterday (a baseline of none). Every output that tells the
// crowd tells the same surge — a plain /check, the statusline, the
// situation, the service document and /metrics — while the API's status
// stays the page's everywhere, and no surface is said to have a crowd.
func TestOutputsSayTheCrowdSurge(t *testing.T) {
	t.Parallel()
	real, err := os.ReadFile(filepath.Join("..", "..", "build", "feed", "testdata", "real", "statuspage-anthropic-20260729.json"))
	if err != nil {
		t.Fatal(err)
	}
	b := newPageBuilds(t, "anthropic", buildtest.ComponentsVariant(t, real, func(string, string) string { return "operational" }))
	b.cycle(build.Completions{})
	// The server starts a day and an hour back, so that the crowd has a
	// baseline for this hour, yesterday's, counted whole: nobody reported.
	var offset atomic.Int64
	offset.Store(int64(-25 * time.Hour))
	srv := serve.New(serve.Options{Dir: b.out, Catalog: b.cat, Log: zerolog.Nop(), Client: &http.Client{Timeout: 5 * time.Second},
		Now: func() time.Time { return b.clock.Now().Add(time.Duration(offset.Load())) }})
	offset.Store(0)
	if ok, err := srv.Store().Reload(); !ok || err != nil {
		t.Fatalf("serve the snapshot: %v %v", ok, err)
	}
	get := func(path, from string) []byte {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.RemoteAddr = from
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		return rec.Body.Bytes()
	}
	voices := check.SurgeMinReports
	for i := range voices {
		// A network each (an IPv6 /48): the crowd counts networks.
		get(snapshot.PathCheck+"?q=anthropic&error=529", fmt.Sprintf("[2001:db8:%x::1]:4000", i+1))
	}
	const asker = "192.0.2.1:1234"

	var doc api.CheckDoc
	if err := json.Unmarshal(get(snapshot.PathCheck+"?q=anthropic", asker), &doc); err != nil {
		t.Fatal(err)
	}
	var crowd *api.Evidence
	for _, ev := range doc.Verdict.Evidence {
		if ev.Source == api.EvidenceReports {
			crowd = &ev
		}
	}
	if doc.Status == nil || *doc.Status != api.Operational || crowd == nil || crowd.State != check.ReportsSurge || crowd.Count == nil || *crowd.Count != voices {
		t.Errorf("plain /check: status %v, crowd %+v; want operational and the surge of %d", doc.Status, crowd, voices)
	}
	marker := fmt.Sprintf("(👥 errors reported from %d networks)", voices)
	if line := string(get(snapshot.PathStatusline+"?q=anthropic", asker)); !strings.Contains(line, " up "+marker) {
		t.Errorf("statusline %q: want up, marked %s", line, marker)
	}
	var situation api.Situation
	if err := json.Unmarshal(get(snapshot.PathSituation, asker), &situation); err != nil {
		t.Fatal(err)
	}
	for _, sub := range situation.Subjects {
		switch {
		case sub.ID == "anthropic":
			if sub.Status != api.Operational || sub.Reports == nil || sub.Reports.State != check.ReportsSurge || sub.Reports.Count != voices {
				t.Errorf("situation of the API: %s, reports %+v; want operational and the surge", sub.Status, sub.Reports)
			}
		case sub.Reports != nil:
			t.Errorf("situation of %s carries the crowd %+v: reports are of the API", sub.ID, sub.Reports)
		}
	}
	var service api.ServiceDoc
	if err := json.Unmarshal(get("/api/v1/services/anthropic", asker), &service); err != nil {
		t.Fatal(err)
	}
	if service.Status != api.Operational || service.Reports == nil || service.Reports.State != check.ReportsSurge || service.Reports.Count != voices {
		t.Errorf("service document: %s, reports %+v; want operational and the surge", service.Status, service.Reports)
	}
	metrics := string(get(snapshot.PathMetrics, asker))
	for _, sample := range []string{
		`aistatus_surface_status{service="anthropic",surface="api",status="operational"} 1`,
		`aistatus_crowd_surge{service="anthropic"} 1`,
		fmt.Sprintf(`aistatus_crowd_reports{service="anthropic"} %d`, voices),
	} {
		if !strings.Contains(metrics, "\n"+sample+"\n") {
			t.Errorf("/metrics lacks %s", sample)
		}
	}
}

// sonnet is a pinned model that OpenRouter's split fixture serves at
// Anthropic, Bedrock and Google.
const sonnet = "anthropic/claude-sonnet-4.5"

// openAIKey is a made-up key, for the builds that measure completions.
const openAIKey = "sk-proj-Zq81xWv3Lm0Tn5Ky7Rb2Hc9Jd4Fg6Pa1"

// buildsStart is when the builds' clock starts.
var buildsStart = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// builds runs full builds of a catalog into one snapshot folder on a fake
// clock, for the tests that then ask every output, the thin server's
// included, what it says.
type builds struct {
	t     *testing.T
	cat   catalog.Catalog
	clock *buildtest.Clock
	out   string
	// step is how far the clock moves after each build.
	step time.Duration
	// world is the fake of every page and API host the builds read
	// (newWorldBuilds); nil for newPageBuilds.
	world *buildtest.World
	// page is the fake of the one service's page (newPageBuilds); nil for
	// newWorldBuilds.
	page *buildtest.OnePage
}

// newWorldBuilds runs builds of cat against a fake world, a minute apart.
func newWorldBuilds(t *testing.T, cat catalog.Catalog) *builds {
	t.Helper()
	b := &builds{t: t, clock: buildtest.NewClock(buildsStart), out: filepath.Join(t.TempDir(), "public"), step: time.Minute,
		world: buildtest.NewWorld(t, cat)}
	b.world.Clock = b.clock.Now
	b.cat = b.world.Catalog
	return b
}

// newPageBuilds runs builds, five minutes apart, of a catalog of one
// service, with its own catalog entry (scope, surfaces,
// otherComponents), against a fake of its page (buildtest.OnePage).
func newPageBuilds(t *testing.T, slug string, page []byte) *builds {
	t.Helper()
	p := buildtest.NewOnePage(t, slug, page)
	return &builds{t: t, cat: p.Catalog, clock: buildtest.NewClock(buildsStart), out: filepath.Join(t.TempDir(), "public"), step: 5 * time.Minute, page: p}
}

// cycle runs one build, measuring completions as c says, and advances
// the clock.
func (b *builds) cycle(c build.Completions) {
	b.t.Helper()
	_, err := build.Build(context.Background(), build.Options{
		Out:         b.out,
		Site:        build.Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "aistatus test"},
		Catalog:     b.cat,
		Timeout:     5 * time.Second,
		Client:      outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(b.cat)}),
		Now:         b.clock.Now,
		Log:         zerolog.Nop(),
		Adapters:    feed.Adapters(),
		Completions: c,
	})
	if err != nil {
		b.t.Fatalf("build at %s: %v", b.clock.Now(), err)
	}
	b.clock.Advance(b.step)
}

// read decodes the snapshot's JSON file name.
func (b *builds) read(name string, v any) {
	b.t.Helper()
	readJSON(b.t, filepath.Join(b.out, name), v)
}
