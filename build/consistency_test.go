package build

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/site"
	"github.com/aistatus/aistatus/catalog"
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
// claude.ai) fails here.
func TestOutputsSayOneTruth(t *testing.T) {
	t.Parallel()
	real, err := os.ReadFile(filepath.Join("feed", "testdata", "real", "statuspage-anthropic-20260729.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The capture's components, by the subject whose scope holds them.
	components := map[string]string{
		"k8w3r06qmzrp": "anthropic", "rwppv331jlwc": "anthropic/app", "bpp5gb3hpjcl": "anthropic/app",
		"yyzkbfz2thpt": "anthropic/agent", "0qbwn08sd68x": "anthropic/console",
	}
	page := func(statuses map[string]string) []byte {
		return anthropicVariant(t, real, func(id, _ string) string {
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
		// The API's last word stands in for a while (Assemble's rule 4); a
		// surface's is never held.
		{"the page unreadable", []byte("<html>a challenge page</html>"),
			map[string]api.Status{"anthropic": api.Operational, "anthropic/app": api.Unknown, "anthropic/agent": api.Unknown, "anthropic/console": api.Unknown}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newPageBuilds(t, "anthropic", page(nil))
			b.cycle() // a calm first build: the change log then has transitions to show
			b.serve(tc.page)
			b.cycle()
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
	facade                                   map[string]string
	card                                     string
	handler                                  http.Handler
	t                                        *testing.T
}

func readOutputs(t *testing.T, b *pageBuilds) outputs {
	t.Helper()
	o := outputs{serviceDoc: map[string]api.Status{}, statusJSON: map[string]api.Status{}, metrics: map[string]api.Status{},
		changes: map[string]api.Status{}, facade: map[string]string{}, t: t}
	subject := func(slug string, id catalog.SurfaceID) string {
		if id == catalog.SurfaceAPI {
			return slug
		}
		return slug + "/" + string(id)
	}

	slug := b.cat.Services[0].Slug
	var doc api.ServiceDoc
	b.read(snapshot.ServiceFile(slug), &doc)
	for _, sf := range doc.Surfaces {
		o.serviceDoc[subject(doc.Slug, sf.ID)] = sf.Status
	}
	var status api.StatusDoc
	b.read(snapshot.FileStatus, &status)
	for _, sum := range status.Services {
		for _, sf := range sum.Surfaces {
			o.statusJSON[subject(sum.Slug, sf.ID)] = sf.Status
		}
	}
	var summary struct {
		Components []struct{ ID, Status string } `json:"components"`
	}
	b.read(site.StatuspageDir(slug)+"/summary.json", &summary)
	for _, c := range summary.Components {
		o.facade[c.ID] = c.Status
	}
	metrics, err := os.ReadFile(filepath.Join(b.out, snapshot.FileMetrics))
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^aistatus_surface_status\{([^}]*)\} 1$`)
	label := regexp.MustCompile(`(\w+)="([^"]*)"`)
	for _, m := range line.FindAllStringSubmatch(string(metrics), -1) {
		labels := map[string]string{}
		for _, l := range label.FindAllStringSubmatch(m[1], -1) {
			labels[l[1]] = l[2]
		}
		o.metrics[subject(labels["service"], catalog.SurfaceID(labels["surface"]))] = api.Status(labels["status"])
	}
	var changes api.ChangeList
	b.read(snapshot.FileChanges, &changes)
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
	o.card = nodeText(root, "worst-surface")

	srv := serve.New(serve.Options{Dir: b.out, Catalog: b.cat, Log: zerolog.Nop(), Now: b.clock.Now, Client: &http.Client{}})
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
	real, err := os.ReadFile(filepath.Join("feed", "testdata", "real", "incidentio-cohere-20260723.json"))
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
				return anthropicVariant(t, real, func(id, _ string) string {
					if id == component {
						return status
					}
					return "operational"
				})
			}
			b := newPageBuilds(t, "cohere", page("operational"))
			b.cat.Models.Pinned = []catalog.Model{md}
			b.cycle()
			b.serve(page(tc.component))
			b.cycle()
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
			if row := modelRowText(root, model); !strings.Contains(row, site.StatusLabel(tc.want)) {
				t.Errorf("the models page's row %q does not say %q", row, site.StatusLabel(tc.want))
			}
		})
	}
}

// modelRowText is the text of the models page's row of the model.
func modelRowText(n *html.Node, id string) string {
	return textOf(n, func(n *html.Node) bool {
		return slices.ContainsFunc(n.Attr, func(a html.Attribute) bool { return a.Key == "data-model" && a.Val == id })
	})
}
