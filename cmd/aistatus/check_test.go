package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
)

// publishStatuses publishes a snapshot generated at genTime in which each
// slug of statuses has that status and every other service is operational.
// Every probe URL of the returned catalog file points at a loopback fake, so
// check's live probe never leaves the machine.
func publishStatuses(t *testing.T, genTime time.Time, statuses map[string]api.Status) (dir, catalog string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "public")
	return dir, publishStatusesInto(t, dir, genTime, statuses)
}

// publishStatusesInto is publishStatuses into dir, replacing the snapshot
// there; it returns the catalog file.
func publishStatusesInto(t *testing.T, dir string, genTime time.Time, statuses map[string]api.Status) (catalog string) {
	t.Helper()
	states := map[string]build.ServiceState{}
	for slug, st := range statuses {
		states[slug] = build.ServiceState{Status: st}
	}
	return publishStatesInto(t, dir, genTime, states)
}

// publishStates is publishStatuses with each listed service's whole state
// (its sources too); every other service is operational.
func publishStates(t *testing.T, genTime time.Time, given map[string]build.ServiceState) (dir, catalog string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "public")
	return dir, publishStatesInto(t, dir, genTime, given)
}

// publishStatesInto is publishStates into dir, a newer snapshot replacing
// the one there; it returns the catalogPath file.
func publishStatesInto(t *testing.T, dir string, genTime time.Time, given map[string]build.ServiceState) (catalogPath string) {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(fake.Close)
	for i := range cat.Services {
		svc := &cat.Services[i]
		if svc.ProbeURL != "" {
			svc.ProbeURL = fake.URL + "/" + svc.Slug
		}
		// A surface's own host (claude.ai) is probed too.
		svc.Surfaces = slices.Clone(svc.Surfaces)
		for j, sf := range svc.Surfaces {
			if sf.ProbeURL != "" {
				svc.Surfaces[j].ProbeURL = fake.URL + "/" + svc.Slug + "/" + string(sf.ID)
			}
		}
	}
	publishCatalogInto(t, dir, cat, genTime, given)
	return writeCatalog(t, cat)
}

// publishCatalogInto publishes into dir a snapshot built with cat at
// genTime, in which each service of given has that state and every other
// one is operational.
func publishCatalogInto(t *testing.T, dir string, cat catalog.Catalog, genTime time.Time, given map[string]build.ServiceState) {
	t.Helper()
	h := history.New()
	states := map[string]build.ServiceState{}
	for _, svc := range cat.Services {
		state, ok := given[svc.Slug]
		if !ok {
			state = build.ServiceState{Status: api.Operational}
		}
		h.Track(svc.Slug).Record(genTime, state.Status, new(100.0))
		states[svc.Slug] = state
	}
	files, err := build.Render(build.Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "test"}, cat, h, states, genTime)
	if err != nil {
		t.Fatal(err)
	}
	if err := snapshot.Publish(dir, files); err != nil {
		t.Fatal(err)
	}
}

// TestCheckExitCodes: check exits as a monitoring plugin does — 0 up,
// 1 degraded or maintenance, 2 down, 3 unknown, stale, untracked or failed —
// and --json changes the output, never the code.
func TestCheckExitCodes(t *testing.T) {
	t.Parallel()
	fresh, catalog := publishStatuses(t, time.Now(), map[string]api.Status{
		"anthropic":     api.Degraded,
		"google-gemini": api.PartialOutage,
		"mistral":       api.MajorOutage,
		"cohere":        api.Maintenance,
		"groq":          api.Unknown,
	})
	stale, _ := publishStatuses(t, time.Now().Add(-time.Hour), nil)
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		level string // verdict.level in --json output; "" when check fails before a verdict
	}{
		{"up", []string{"openai"}, 0, "up"},
		{"degraded", []string{"anthropic"}, 1, "degraded"},
		{"maintenance", []string{"cohere"}, 1, "maintenance"},
		{"partial outage", []string{"google-gemini"}, 2, "down"},
		{"major outage", []string{"mistral"}, 2, "down"},
		{"unknown", []string{"groq"}, 3, "unknown"},
		{"untracked", []string{"no-such-service.example"}, 3, "untracked"},
		{"stale", []string{"openai", "--dir", stale}, 3, "stale"},
		{"no snapshot", []string{"openai", "--dir", filepath.Join(t.TempDir(), "missing")}, 3, ""},
		{"no query", []string{}, 3, ""},
		{"unknown flag", []string{"openai", "--bogus"}, 3, ""},
		// --error changes the advice, never the code, which says the status.
		{"up, error 401", []string{"openai", "--error", "401"}, 0, "up"},
		{"major outage, error 529", []string{"mistral", "--error", "529"}, 2, "down"},
		{"bad --error", []string{"openai", "--error", "600"}, 3, ""},
		{"untracked, error timeout", []string{"no-such-service.example", "--error", "timeout"}, 3, "untracked"},
	} {
		for _, asJSON := range []bool{false, true} {
			name := tc.name
			if asJSON {
				name += "/json"
			}
			t.Run(name, func(t *testing.T) {
				args := append([]string{"check", "--dir", fresh, "--catalog", catalog}, tc.args...)
				if asJSON {
					args = append(args, "--json")
				}
				var stdout, stderr strings.Builder
				code := execute(context.Background(), args, &stdout, &stderr)
				if code != tc.code {
					t.Errorf("exit %d, want %d; stdout %q, stderr %q", code, tc.code, stdout.String(), stderr.String())
				}
				if tc.level == "" {
					if stderr.Len() == 0 {
						t.Errorf("failure without a message on stderr")
					}
					return
				}
				// A verdict is output, not an error: nothing on stderr.
				if stderr.Len() != 0 {
					t.Errorf("stderr: %q", stderr.String())
				}
				if !asJSON {
					if stdout.Len() == 0 {
						t.Errorf("no verdict printed")
					}
					return
				}
				var doc api.CheckDoc
				if err := json.Unmarshal([]byte(stdout.String()), &doc); err != nil {
					t.Fatalf("--json output: %v: %s", err, stdout.String())
				}
				if doc.Verdict.Level != tc.level {
					t.Errorf("verdict.level %q, want %q", doc.Verdict.Level, tc.level)
				}
			})
		}
	}
}

// TestCheckError: --error prints the advice — action, blame, alternatives
// — and --json the same document /check serves.
func TestCheckError(t *testing.T) {
	t.Parallel()
	dir, catalog := publishStatuses(t, time.Now(), map[string]api.Status{
		"anthropic":  api.MajorOutage,
		"openrouter": api.PartialOutage,
	})
	for _, tc := range []struct {
		args          []string
		code          int
		want          []string // in the text output
		action, blame string
		alts          []string
	}{
		{[]string{"claude", "--error", "529"}, 2, []string{"Action: failover (blame: provider, confidence: high)", "Alternatives: Amazon Bedrock (aws-bedrock, operational), Google Gemini",
			"Ask again in 60 s, or as soon as"},
			"failover", "provider", []string{"aws-bedrock", "google-gemini"}},
		{[]string{"openai", "--error", "401"}, 0, []string{"Action: fix_client (blame: client, confidence: high)", "Alternatives: Azure OpenAI (azure-openai, operational)"},
			"fix_client", "client", []string{"azure-openai"}},
		{[]string{"openai", "--error", "429"}, 0, []string{"Action: retry (blame: client, confidence: high), retry after 30 s"}, "retry", "client", []string{"azure-openai"}},
		{[]string{"openai"}, 0, []string{"Action: proceed"}, "proceed", "unknown", []string{"azure-openai"}},
		{[]string{"openai", "--error", "429", "--code", "insufficient_quota"}, 0, []string{"Action: fix_client (blame: client, confidence: high)", "quota or billing limit"},
			"fix_client", "client", []string{"azure-openai"}},
		{[]string{"openai", "--error", "429", "--code", "rate_limit_exceeded", "--retry-after", "20"}, 0, []string{"Action: retry (blame: client, confidence: high), retry after 20 s"},
			"retry", "client", []string{"azure-openai"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			base := append([]string{"check", "--dir", dir, "--catalog", catalog}, tc.args...)
			var stdout, stderr strings.Builder
			if code := execute(context.Background(), base, &stdout, &stderr); code != tc.code {
				t.Fatalf("exit %d, want %d: %s %s", code, tc.code, stdout.String(), stderr.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, stdout.String())
				}
			}
			stdout.Reset()
			if code := execute(context.Background(), append(base, "--json"), &stdout, &stderr); code != tc.code {
				t.Fatalf("--json: exit %d, want %d", code, tc.code)
			}
			var doc api.CheckDoc
			if err := json.Unmarshal([]byte(stdout.String()), &doc); err != nil {
				t.Fatal(err)
			}
			var alts []string
			for _, a := range doc.Verdict.Alternatives {
				alts = append(alts, a.Slug)
			}
			if doc.Verdict.Action != tc.action || doc.Verdict.Blame != tc.blame || strings.Join(alts, ",") != strings.Join(tc.alts, ",") {
				t.Errorf("--json verdict %s/%s alternatives %v, want %s/%s %v", doc.Verdict.Action, doc.Verdict.Blame, alts, tc.action, tc.blame, tc.alts)
			}
		})
	}
	var stdout, stderr strings.Builder
	if code := execute(context.Background(), []string{"check", "--dir", dir, "--catalog", catalog, "openai", "--error", "teapot"}, &stdout, &stderr); code != exitUnknown ||
		!strings.Contains(stderr.String(), "--error") || !strings.Contains(stderr.String(), "timeout") {
		t.Errorf("bad --error: exit %d, stderr %q", code, stderr.String())
	}
	stderr.Reset()
	if code := execute(context.Background(), []string{"check", "--dir", dir, "--catalog", catalog, "openai", "--code", "not a code"}, &stdout, &stderr); code != exitUnknown ||
		!strings.Contains(stderr.String(), "--code") {
		t.Errorf("bad --code: exit %d, stderr %q", code, stderr.String())
	}
}

// TestCheckExitCodeTable: every level /check can answer has a code, and
// only "up" is OK.
func TestCheckExitCodeTable(t *testing.T) {
	t.Parallel()
	for level, want := range map[string]int{
		"up": 0, "degraded": 1, "maintenance": 1, "down": 2, "retired": 2,
		"unknown": 3, "stale": 3, "untracked": 3, "a-level-added-later": 3,
	} {
		if got := checkExitCode(level); got != want {
			t.Errorf("checkExitCode(%q) = %d, want %d", level, got, want)
		}
	}
}

// TestCheckOffline: on a machine whose network is down, where every probe
// fails, `check --error connection` blames the caller's own network, not
// the provider; where only the provider's host fails, it still blames the
// provider.
func TestCheckOffline(t *testing.T) {
	t.Parallel()
	unknown := map[string]build.ServiceState{}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, svc := range cat.Services {
		unknown[svc.Slug] = build.ServiceState{Status: api.Unknown} // what a build without a network publishes
	}
	closedServer := func() string {
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close() // nothing listens there any more
		return srv.URL
	}
	provider, others := closedServer(), closedServer()
	answering := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) }))
	t.Cleanup(answering.Close)
	for _, tc := range []struct {
		name, othersAt, blame, says string
	}{
		{"every host unreachable", others, api.BlameClient, "your own network looks down"},
		{"only the provider's host unreachable", answering.URL, api.BlameProvider, "Our own probe cannot reach its API either"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cat
			c.Services = append([]catalog.Service(nil), cat.Services...)
			for i, svc := range c.Services {
				if svc.ProbeURL == "" {
					continue
				}
				c.Services[i].ProbeURL = tc.othersAt + "/" + svc.Slug
				if svc.Slug == "together" {
					c.Services[i].ProbeURL = provider + "/together"
				}
			}
			// The snapshot built with those hosts, as check probes by the
			// snapshot's catalog.
			dir := filepath.Join(t.TempDir(), "public")
			publishCatalogInto(t, dir, c, time.Now(), unknown)
			var stdout, stderr strings.Builder
			execute(context.Background(), []string{"check", "--dir", dir, "--catalog", writeCatalog(t, c), "together", "--error", "connection", "--json"}, &stdout, &stderr)
			var doc api.CheckDoc
			if err := json.Unmarshal([]byte(stdout.String()), &doc); err != nil {
				t.Fatalf("%v: %s %s", err, stdout.String(), stderr.String())
			}
			if v := doc.Verdict; v.Blame != tc.blame || !strings.Contains(v.Reason, tc.says) {
				t.Errorf("verdict %s/%s/%s %q, want blame %s saying %q", v.Action, v.Blame, v.Confidence, v.Reason, tc.blame, tc.says)
			}
		})
	}
}

// An untracked query's suggestions read as a question, not a Go slice.
func TestCheckSuggestions(t *testing.T) {
	t.Parallel()
	dir, catalog := publishStatuses(t, time.Now(), nil)
	var stdout, stderr strings.Builder
	execute(context.Background(), []string{"check", "--dir", dir, "--catalog", catalog, "opneai"}, &stdout, &stderr)
	if out := stdout.String(); !strings.Contains(out, "Did you mean OpenAI?") || strings.Contains(out, "[") {
		t.Errorf("output: %s", out)
	}
}

// TestCheckAnswersByTheSnapshotsCatalog: check --dir answers by the
// catalog the snapshot was built with, as the server on the same folder
// does — a service the embedded catalog lacks is found, not untracked —
// while it probes only the hosts of its own catalog: the unknown service's
// host is never asked.
func TestCheckAnswersByTheSnapshotsCatalog(t *testing.T) {
	t.Parallel()
	var probed atomic.Int64
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		probed.Add(1)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(host.Close)
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	extra := cat.Services[0]
	extra.Slug, extra.Name, extra.Domain, extra.Aliases = "acme-llm", "Acme LLM", "acme-llm.example", nil
	extra.ProbeURL, extra.Surfaces = host.URL+"/v1/models", nil
	cat.Services = append(cat.Services, extra)
	dir := filepath.Join(t.TempDir(), "public")
	publishCatalogInto(t, dir, cat, time.Now(), map[string]build.ServiceState{"acme-llm": {Status: api.Degraded}})
	var stdout, stderr strings.Builder
	code := execute(context.Background(), []string{"check", "--dir", dir, "acme-llm.example", "--json"}, &stdout, &stderr)
	var doc api.CheckDoc
	if err := json.Unmarshal([]byte(stdout.String()), &doc); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", code, err, stdout.String(), stderr.String())
	}
	if code != exitWarning || doc.Service == nil || doc.Service.Slug != "acme-llm" || doc.Status == nil || *doc.Status != api.Degraded {
		t.Errorf("exit %d, service %+v, status %v: want Acme LLM, degraded, from the snapshot's catalog", code, doc.Service, doc.Status)
	}
	if n := probed.Load(); n != 0 {
		t.Errorf("the host outside the command's own catalog was probed %d times", n)
	}
}
