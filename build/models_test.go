package build

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/models"
	"github.com/aistatus/aistatus/models/modelstest"
	"github.com/aistatus/aistatus/snapshot"
)

// Whole cycles of the models against the fake world's gateway; the rules
// of the models' own reads and assembly are models' tests.

const sonnet = "anthropic/claude-sonnet-4.5"

// TestBuildModelsHostileGateway runs whole cycles against a gateway whose
// document of a model floods: the published model holds one entry per
// tracked provider and region, never more than models.MaxGatewayEntries; a
// document past a cap fails that model's read as a schema failure, and the
// model's entries from the gateway read unknown, as after any broken feed.
func TestBuildModelsHostileGateway(t *testing.T) {
	t.Parallel()
	// flood is as many endpoints as a document may list: the fixture's
	// five over and over, its untracked host under a new name each time
	// and Anthropic under quantization tags every other time.
	flood := modelstest.SplitWith(t, filepath.Join("..", modelstest.SplitFixture), feed.MaxGatewayEndpoints, func(i int, ep map[string]any) {
		switch i % 5 {
		case 0:
			if i%2 == 1 {
				ep["tag"] = "anthropic/fp8"
			}
		case 4:
			ep["provider_name"] = fmt.Sprintf("Untracked Host %d", i)
		}
	})
	for _, tc := range []struct {
		name, doc string
		fail      bool
	}{
		{"as many endpoints as the cap, all but four repeated or untracked", flood, false},
		{"5000 endpoints of the same five", modelstest.SplitWith(t, filepath.Join("..", modelstest.SplitFixture), 5000, nil), true},
		{"a tracked provider in more regions than the cap", modelstest.SplitWith(t, filepath.Join("..", modelstest.SplitFixture), models.MaxGatewayEntries+1, func(i int, ep map[string]any) {
			ep["provider_name"], ep["tag"] = "Google", fmt.Sprintf("google-vertex/region-%d", i)
		}), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The services the fixture's endpoints are at: the others only
			// cost each build its time.
			h := newHarnessWith(t, scheduleCatalog(t, "anthropic", "aws-bedrock", "google-gemini"))
			split, err := os.ReadFile(filepath.Join("feed", "testdata", "openrouter-split.json"))
			if err != nil {
				t.Fatal(err)
			}
			h.world.SetModel(sonnet, string(split))
			h.cycle()
			h.world.SetModel(sonnet, tc.doc)
			h.clock.Advance(5 * time.Minute)
			h.cycle()

			var list api.ModelsDoc
			h.read(snapshot.FileModels, &list)
			var one api.ModelDoc
			h.read(snapshot.ModelFile(sonnet), &one)
			for _, doc := range []api.ModelDoc{one, func() api.ModelDoc {
				for _, m := range list.Models {
					if m.ID == sonnet {
						return m
					}
				}
				t.Fatalf("no %s in models.json", sonnet)
				return api.ModelDoc{}
			}()} {
				pairs := map[string]bool{}
				for _, p := range doc.Providers {
					region := ""
					if p.Region != nil {
						region = *p.Region
					}
					if pairs[p.Provider+"/"+region] {
						t.Fatalf("%s at %q twice: %d providers", p.Provider, region, len(doc.Providers))
					}
					pairs[p.Provider+"/"+region] = true
				}
				// The fixture's four tracked pairs, this cycle's figures
				// or, after a failed read, last cycle's as unknown.
				if len(doc.Providers) != 4 || len(doc.Providers) > models.MaxGatewayEntries {
					t.Fatalf("%d providers, want the 4 tracked pairs: %+v", len(doc.Providers), doc.Providers)
				}
				for _, p := range doc.Providers {
					if tc.fail != (p.Status == api.Unknown && strings.Contains(p.Source.Error, "more than")) {
						t.Errorf("%s: %s (%q), want unknown with the cap named: %v", p.Provider, p.Status, p.Source.Error, tc.fail)
					}
				}
			}
			// The world answers 404 for every other model, so the health's
			// first failure is theirs: the kind is TestTrackedEndpoints' and
			// TestOpenRouterEndpointCap's to check.
			if src := list.Sources[0]; slices.Contains(src.FailedModels, sonnet) != tc.fail {
				t.Errorf("gateway health = %+v, want %s among the failed models: %v", src, sonnet, tc.fail)
			}
		})
	}
}

// builtView is what /check reads of a built folder for a model's
// evidence: status.json's services and models.json's models.
type builtView struct {
	status api.StatusDoc
	models api.ModelsDoc
}

func (v builtView) GeneratedAt() time.Time { return v.status.Timestamp }
func (v builtView) Age(now time.Time) (time.Duration, bool) {
	return now.Sub(v.status.Timestamp), false
}
func (v builtView) Summary(slug string) (api.ServiceSummary, bool) {
	for _, s := range v.status.Services {
		if s.Slug == slug {
			return s, true
		}
	}
	return api.ServiceSummary{}, false
}
func (v builtView) OpenIncidents(string) []*api.Incident { return nil }
func (v builtView) IncidentsSince(string, time.Time) (int, *api.Incident) {
	return 0, nil
}
func (v builtView) BuildProbe(string) (check.Live, bool) { return check.Live{}, false }
func (v builtView) Vantages(string) (api.Vantages, bool) { return api.Vantages{}, false }
func (v builtView) Measured(string) []api.MeasuredModel  { return nil }
func (v builtView) Reliability(string) (api.Reliability, bool) {
	return api.Reliability{}, false
}
func (v builtView) Model(id string) (api.ModelDoc, bool) {
	for _, m := range v.models.Models {
		if m.ID == id {
			return m, true
		}
	}
	return api.ModelDoc{}, false
}

// TestBuildModelsHostileText runs a cycle against a gateway whose tags and
// provider names carry what was seen reaching models.json, index.html and
// /check's evidence: a terminal title (OSC … BEL), a screen clear, CR LF,
// and a region cut at 100 bytes inside a character. No published file and
// no evidence may hold any of it, while the entries themselves stay.
func TestBuildModelsHostileText(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.world.SetModel(sonnet, modelstest.SplitWith(t, filepath.Join("..", modelstest.SplitFixture), 5, func(i int, ep map[string]any) {
		switch i {
		case 0:
			ep["tag"] = "anthropic/\x1b]0;pwned\x07"
		case 1:
			ep["tag"] = "amazon-bedrock/us-east-1\r\nX-Injected: 1"
		case 2:
			ep["tag"] = "google-vertex/\x1b[2J\x1b[H"
		case 3:
			ep["tag"] = "google-vertex/x" + strings.Repeat("é", 60) // byte 100 inside an é
		case 4:
			ep["provider_name"] = "Untracked\x1b]0;pwned\x07\r\n"
		}
	}))
	h.cycle()

	err := filepath.WalkDir(h.out, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		name, _ := filepath.Rel(h.out, path)
		bad := "\x1b\x07\r"
		if ext := filepath.Ext(name); ext == ".csv" || ext == ".ics" {
			bad = "\x1b\x07" // CSV and iCalendar end their lines with CR LF
		}
		if i := bytes.IndexAny(data, bad); i >= 0 {
			t.Errorf("%s holds byte %#x: %q", name, data[i], data[max(i-40, 0):min(i+40, len(data))])
		}
		if !utf8.Valid(data) {
			t.Errorf("%s is not UTF-8", name)
		}
		if filepath.Ext(name) == ".json" {
			var doc any
			if err := json.Unmarshal(data, &doc); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			for _, s := range jsonStrings(doc) {
				if strings.ContainsAny(s, bad+"\uFFFD") {
					t.Errorf("%s holds %q", name, s)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	var v builtView
	h.read(snapshot.FileStatus, &v.status)
	h.read(snapshot.FileModels, &v.models)
	m, _ := v.Model(sonnet)
	var regions []string
	for _, p := range m.Providers {
		if p.Region != nil {
			regions = append(regions, *p.Region)
		}
	}
	// The four tracked entries are published, their regions cleaned.
	if want := []string{"]0;pwned", "us-east-1 X-Injected: 1", "[2J [H", "x" + strings.Repeat("é", 60)}; !slices.Equal(regions, want) {
		t.Errorf("regions %q, want %q", regions, want)
	}
	doc, err := check.New(h.world.Catalog, nil, h.clock.Now, check.FromServer).Check(v, check.Request{Query: "anthropic", Model: "claude-sonnet-4.5"})
	if err != nil {
		t.Fatal(err)
	}
	says := ""
	for _, ev := range doc.Verdict.Evidence {
		says += ev.Says + "\n"
	}
	if !strings.Contains(says, "]0;pwned") || !strings.Contains(says, "[2J") {
		t.Errorf("the evidence lacks the hostile endpoints' entries:\n%s", says)
	}
	out, _ := json.Marshal(doc)
	if i := strings.IndexFunc(says+string(out), func(r rune) bool {
		return r != '\n' && (unicode.IsControl(r) || r == utf8.RuneError)
	}); i >= 0 {
		t.Errorf("the check's answer holds a control character or a cut one: %q", (says + string(out))[max(i-40, 0):])
	}
	for _, esc := range []string{`\u001b`, `\u0007`, `\r`, `\n`} {
		if strings.Contains(string(out), esc) {
			t.Errorf("the check's answer holds %s", esc)
		}
	}
}

// jsonStrings are every string of a decoded JSON document, keys included.
func jsonStrings(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, jsonStrings(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for k, e := range v {
			out = append(append(out, k), jsonStrings(e)...)
		}
		return out
	}
	return nil
}

// TestBuildModels runs whole cycles against the fake world, its gateway
// scripted: the model documents are published with every figure's source,
// the figures survive into the next cycle's history, and a gateway that
// stops answering leaves its models unknown with the failure recorded.
func TestBuildModels(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	split, err := os.ReadFile(filepath.Join("feed", "testdata", "openrouter-split.json"))
	if err != nil {
		t.Fatal(err)
	}
	h.world.SetModel(sonnet, string(split))
	h.cycle()

	var list api.ModelsDoc
	h.read(snapshot.FileModels, &list)
	var one api.ModelDoc
	h.read(snapshot.ModelFile(sonnet), &one)
	statuses := map[string]api.Status{}
	for _, p := range one.Providers {
		statuses[p.Provider+" "+p.Service] = p.Status
	}
	if statuses["Anthropic anthropic"] != api.PartialOutage || statuses["Amazon Bedrock aws-bedrock"] != api.Operational ||
		one.Status != api.Operational || one.License != api.License || one.Timestamp == nil {
		t.Errorf("%s = %+v", snapshot.ModelFile(sonnet), one)
	}
	src := list.Sources[0]
	// Every other watched model got a 404 from the world: one failing read
	// each, every model read once.
	if src.Reads != len(h.world.Catalog.Models.Pinned) || src.Failed != src.Reads-1 || src.State != api.FeedError || src.Failure != api.FailureHTTP {
		t.Errorf("gateway health = %+v", src)
	}
	for _, m := range list.Models {
		if m.ID != sonnet && m.Status != api.Unknown {
			t.Errorf("%s = %s: nobody reported on it", m.ID, m.Status)
		}
	}

	h.world.SetModel(sonnet, "")
	h.clock.Advance(5 * time.Minute)
	h.cycle()
	h.read(snapshot.ModelFile(sonnet), &one)
	if one.Status != api.Unknown || len(one.Providers) != 4 || !strings.Contains(one.Providers[0].Source.Error, "404") {
		t.Errorf("after the gateway lost it: %+v", one)
	}
	h.read(snapshot.FileModels, &list)
	if src := list.Sources[0]; src.ConsecutiveFailures != 2 || src.Failed != src.Reads {
		t.Errorf("gateway health = %+v, want two failing cycles", src)
	}
}

// TestModelSourcesAlarmAsFeeds: a failing model source turns to an alarm
// in the log after as long as a failing official source does.
func TestModelSourcesAlarmAsFeeds(t *testing.T) {
	t.Parallel()
	if models.SourceAlarmAfter != SourceAlarmAfter {
		t.Errorf("models.SourceAlarmAfter = %s, SourceAlarmAfter = %s: the same", models.SourceAlarmAfter, SourceAlarmAfter)
	}
}
