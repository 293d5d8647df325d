package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
	"go.yaml.in/yaml/v3"
)

// snapshotWorkflow is the part of snapshot.yml the tests read.
type snapshotWorkflow struct {
	On struct {
		Schedule []struct {
			Cron string `yaml:"cron"`
		} `yaml:"schedule"`
	} `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		If          string            `yaml:"if"`
		Permissions map[string]string `yaml:"permissions"`
		Steps       []struct {
			ID  string `yaml:"id"`
			Run string `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func readSnapshotWorkflow(t *testing.T) snapshotWorkflow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "snapshot.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf snapshotWorkflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	return wf
}

// jobSteps returns the run scripts of one job of the snapshot workflow, by
// step id, failing unless every id in want is there.
func jobSteps(t *testing.T, job string, want ...string) map[string]string {
	t.Helper()
	steps := map[string]string{}
	for _, s := range readSnapshotWorkflow(t).Jobs[job].Steps {
		if s.ID != "" {
			steps[s.ID] = s.Run
		}
	}
	for _, id := range want {
		if steps[id] == "" {
			t.Fatalf("snapshot.yml has no %s-job step %q", job, id)
		}
	}
	return steps
}

// workflowSteps returns the run scripts of the snapshot workflow's build job,
// by step id.
func workflowSteps(t *testing.T) map[string]string {
	t.Helper()
	return jobSteps(t, "build", "compile", "restore", "build")
}

// runStep runs a workflow step's script the way GitHub Actions runs a bash
// step, in dir, with env added. curl's retries wait 1 s each instead of its
// backoff (1, 2, 4 s): a step that must fail retries as the workflow does,
// without 7 s of sleep each time. CURL_HOME, not HOME: the compile step's
// Go cache is under HOME.
func runStep(t *testing.T, script, dir string, env ...string) (string, error) {
	t.Helper()
	curlHome := t.TempDir()
	if err := os.WriteFile(filepath.Join(curlHome, ".curlrc"), []byte("retry-delay = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "CURL_HOME="+curlHome), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestSnapshotWorkflowCarriesHistory runs the scheduled workflow's restore and
// build steps as the workflow does — first with nothing published, then with
// the previous run's output published, then through a redirect (the github.io
// address of a site with a custom domain) — and checks the history carries
// over, uncached, and that anything but a 404 stops the run.
func TestSnapshotWorkflowCarriesHistory(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not found: install it (apt-get install curl) to run the workflow's restore step")
	}
	steps := workflowSteps(t)
	// Three services: what carries over is every service's history by
	// the same path.
	cat := cutCatalog(t, "openai", "anthropic", "groq")
	world := buildtest.NewWorld(t, cat)
	catalog := writeCatalog(t, world.Catalog)

	// The compile step, run from the repository root into a scratch folder.
	bin := t.TempDir()
	compile := strings.ReplaceAll(steps["compile"], "-o bin/aistatus", "-o "+filepath.Join(bin, "bin", "aistatus"))
	if out, err := runStep(t, compile, filepath.Join("..", "..")); err != nil {
		t.Fatalf("compile step: %v\n%s", err, out)
	}

	// The published site: 404 until something is published, 500 on demand.
	// /moved/... answers 301 to the same path without /moved (a custom
	// domain's github.io address); /loop/... redirects to itself forever.
	var (
		mu        sync.Mutex
		published string
		broken    bool
		requests  []*http.Request
	)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		dir, fail := published, broken
		requests = append(requests, r.Clone(context.Background()))
		mu.Unlock()
		switch {
		case strings.HasPrefix(r.URL.Path, "/moved/"):
			u := *r.URL
			u.Path = strings.TrimPrefix(u.Path, "/moved")
			http.Redirect(w, r, u.String(), http.StatusMovedPermanently)
		case strings.HasPrefix(r.URL.Path, "/loop/"):
			http.Redirect(w, r, r.URL.String(), http.StatusFound)
		case fail:
			http.Error(w, "upstream error", http.StatusInternalServerError)
		case dir == "":
			http.NotFound(w, r)
		default:
			http.FileServer(http.Dir(dir)).ServeHTTP(w, r)
		}
	}))
	t.Cleanup(site.Close)

	runs := 0
	// run runs the restore and build steps with SITE_URL set to the site
	// under prefix, and returns the requests the site received.
	run := func(prefix string) (string, string, error) {
		work := t.TempDir()
		if err := os.Symlink(filepath.Join(bin, "bin"), filepath.Join(work, "bin")); err != nil {
			t.Fatal(err)
		}
		runs++
		mu.Lock()
		requests = nil
		mu.Unlock()
		env := []string{"SITE_URL=" + site.URL + prefix, "AISTATUS_CATALOG=" + catalog, "AISTATUS_TIMEOUT=5s",
			fmt.Sprintf("GITHUB_RUN_ID=%d", 1000+runs), "GITHUB_RUN_ATTEMPT=1"}
		out, err := runStep(t, steps["restore"], work, env...)
		if err != nil {
			return work, out, err
		}
		more, err := runStep(t, steps["build"], work, env...)
		return work, out + more, err
	}
	history := func(dir string) *history.History {
		h, _, err := history.ReadHistory(filepath.Join(dir, "public"))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}

	// Every request for history.json bypasses caches: a query string unique
	// to the run and Cache-Control: no-cache, on every hop of a redirect.
	checkUncached := func(name string, wantHops int) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if len(requests) != wantHops {
			t.Errorf("%s: %d requests to the site, want %d", name, len(requests), wantHops)
		}
		for _, r := range requests {
			if !strings.HasSuffix(r.URL.Path, "/history.json") {
				t.Errorf("%s: requested %s", name, r.URL.Path)
			}
			if q := r.URL.Query().Get("nocache"); !strings.HasPrefix(q, fmt.Sprintf("%d.1.", 1000+runs)) {
				t.Errorf("%s: %s has no cache-busting query unique to the run (nocache=%q)", name, r.URL, q)
			}
			if cc := r.Header.Get("Cache-Control"); cc != "no-cache" {
				t.Errorf("%s: Cache-Control %q, want no-cache", name, cc)
			}
		}
	}

	first, out, err := run("")
	if err != nil || !strings.Contains(out, "starting afresh") {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	checkUncached("first run", 1)
	var meta struct {
		StaleAfterSeconds int `json:"staleAfterSeconds"`
	}
	readJSON(t, filepath.Join(first, "public", "snapshot.json"), &meta)
	if meta.StaleAfterSeconds < 45*60 {
		t.Errorf("staleAfterSeconds = %d: shorter than GitHub's usual schedule delays, the stale banner would flap", meta.StaleAfterSeconds)
	}
	h1 := history(first)
	if len(h1.Services) != len(cat.Services) {
		t.Fatalf("first run recorded %d services", len(h1.Services))
	}
	if _, err := os.Stat(filepath.Join(first, "public", ".nojekyll")); err != nil {
		t.Error("no .nojekyll: GitHub Pages would hide .well-known")
	}

	mu.Lock()
	published = filepath.Join(first, "public")
	mu.Unlock()
	second, out, err := run("")
	if err != nil || !strings.Contains(out, "restored history") {
		t.Fatalf("second run: %v\n%s", err, out)
	}
	checkUncached("second run", 1)
	h2 := history(second)
	for slug, before := range h1.Services {
		after := h2.Services[slug]
		if after == nil || !after.LastChecked.After(before.LastChecked) || len(after.Buckets) == 0 {
			t.Fatalf("%s: history did not carry over: before %+v, after %+v", slug, before, after)
		}
	}
	var doc api.ServiceDoc
	readJSON(t, filepath.Join(second, "public", snapshot.ServiceFile("openai")), &doc)
	if doc.Uptime.H24 == nil {
		t.Fatal("uptime is still null after two runs: the first run's check was lost")
	}

	// Through a 301: the history is restored, not mistaken for a failure.
	moved, out, err := run("/moved")
	if err != nil || !strings.Contains(out, "restored history") {
		t.Fatalf("run through a redirect: %v\n%s", err, out)
	}
	checkUncached("run through a redirect", 2)
	if h := history(moved); len(h.Services) != len(cat.Services) || !h.Services["openai"].LastChecked.After(h2.Services["openai"].LastChecked) {
		t.Error("history did not carry over through the redirect")
	}

	// A redirect loop is cut short and, like any answer but 404, stops the run.
	looped, out, err := run("/loop")
	if err == nil || !strings.Contains(out, "keep the history") {
		t.Fatalf("a redirect loop did not stop the run: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(looped, "public", snapshot.FileStatus)); err == nil {
		t.Fatal("a snapshot was built without its history")
	}
	mu.Lock()
	hops := len(requests)
	mu.Unlock()
	if hops > 4*4 { // at most 3 redirects per attempt, 1+3 retries
		t.Errorf("a redirect loop cost %d requests", hops)
	}

	mu.Lock()
	broken = true
	mu.Unlock()
	third, out, err := run("")
	if err == nil || !strings.Contains(out, "keep the history") {
		t.Fatalf("a failed restore did not stop the run: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(third, "public", snapshot.FileStatus)); err == nil {
		t.Fatal("a snapshot was built without its history")
	}
}

// TestSnapshotWorkflowKeepalive runs the keepalive job's step against a fake
// GitHub API on loopback: it must PUT .../actions/workflows/<this file>/enable
// with the job's token, fail when the API refuses, and be the only job that
// may write to Actions.
func TestSnapshotWorkflowKeepalive(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not found: install it (apt-get install curl) to run the keepalive step")
	}
	wf := readSnapshotWorkflow(t)
	job, ok := wf.Jobs["keepalive"]
	if !ok {
		t.Fatal("snapshot.yml has no keepalive job")
	}
	if len(job.Permissions) != 1 || job.Permissions["actions"] != "write" {
		t.Errorf("keepalive permissions = %v, want only actions: write", job.Permissions)
	}
	for name, j := range wf.Jobs {
		if name != "keepalive" && j.Permissions["actions"] != "" {
			t.Errorf("job %s has actions: %s", name, j.Permissions["actions"])
		}
	}
	if wf.Permissions["actions"] != "" {
		t.Errorf("the workflow grants actions: %s to every job", wf.Permissions["actions"])
	}
	// Its condition names a cron entry that exists.
	scheduled := false
	for _, s := range wf.On.Schedule {
		if strings.Contains(job.If, "'"+s.Cron+"'") {
			scheduled = true
		}
	}
	if !scheduled || !strings.Contains(job.If, "workflow_dispatch") {
		t.Errorf("keepalive runs if %q: want one of the schedule's cron entries and manual runs", job.If)
	}
	script := jobSteps(t, "keepalive", "keepalive")["keepalive"]

	var (
		mu     sync.Mutex
		got    []string
		refuse bool
	)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		if refuse {
			http.Error(w, `{"message":"Resource not accessible by integration"}`, http.StatusForbidden)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(api.Close)
	env := []string{"GITHUB_API_URL=" + api.URL, "GITHUB_REPOSITORY=someone/aistatus", "GITHUB_TOKEN=test-token",
		"GITHUB_WORKFLOW_REF=someone/aistatus/.github/workflows/snapshot.yml@refs/heads/main"}

	out, err := runStep(t, script, t.TempDir(), env...)
	if err != nil {
		t.Fatalf("keepalive: %v\n%s", err, out)
	}
	want := "PUT /repos/someone/aistatus/actions/workflows/snapshot.yml/enable Bearer test-token"
	mu.Lock()
	if len(got) != 1 || got[0] != want {
		t.Errorf("keepalive requests %q, want [%q]", got, want)
	}
	refuse, got = true, nil
	mu.Unlock()
	if out, err := runStep(t, script, t.TempDir(), env...); err == nil {
		t.Errorf("keepalive succeeded although the API answered 403:\n%s", out)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestSnapshotWorkflowWarnsAboutUnreadSources runs the workflow's step that
// turns sources.json into annotations: a source failing for over an hour is
// a warning on the run, a changed scope roster a notice, and so is a
// component first seen in no place within the last 10 minutes; the rest is
// silent.
func TestSnapshotWorkflowWarnsAboutUnreadSources(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq not found: install it (apt-get install jq; GitHub's runners have it) to run the sources step")
	}
	steps := jobSteps(t, "build", "sources")
	now := time.Now().UTC()
	ago := func(d time.Duration) *time.Time { t := now.Add(-d); return &t }
	doc := api.SourcesDoc{Timestamp: now, License: api.License, Services: []api.ServiceSources{
		{Slug: "replicate", Name: "Replicate", Feed: api.FeedSource{State: api.FeedError, Failure: api.FailureMoved,
			Error:               "GET https://www.replicatestatus.com/api/v2/summary.json: redirected to another host (100% sure)\nsecond line",
			ConsecutiveFailures: 25, FailingSince: ago(2 * time.Hour)}},
		{Slug: "cohere", Name: "Cohere", Feed: api.FeedSource{State: api.FeedError, Failure: api.FailureTimeout,
			Error: "timeout", ConsecutiveFailures: 2, FailingSince: ago(10 * time.Minute)}},
		{Slug: "openai", Name: "OpenAI", Feed: api.FeedSource{State: api.FeedOK, RosterChangedAt: ago(time.Minute),
			RosterAdded: []string{"Agents (01M3)"}, RosterRemoved: []string{"Sora (01K9)"}}},
		{Slug: "mistral", Name: "Mistral AI", Feed: api.FeedSource{State: api.FeedNone}},
		{Slug: "anthropic", Name: "Anthropic", Feed: api.FeedSource{State: api.FeedOK, Unplaced: []api.UnplacedComponent{
			{ID: "ab12", Name: "Claude in Chrome", FirstSeen: *ago(time.Hour)},
			{ID: "cd34", Name: "Claude 100% Design\nnext", FirstSeen: *ago(2 * time.Minute)},
		}}},
		{Slug: "cohere", Name: "Cohere", Feed: api.FeedSource{State: api.FeedOK, Unplaced: []api.UnplacedComponent{
			{ID: "ef56", Name: "Dashboard", FirstSeen: *ago(time.Hour)},
		}}},
	}}
	dir := t.TempDir()
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "public"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "public", snapshot.FileSources), data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runStep(t, steps["sources"], dir)
	if err != nil {
		t.Fatalf("step failed: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 ||
		!strings.HasPrefix(lines[0], "::warning title=Replicate: status page not read::moved since ") ||
		!strings.Contains(lines[0], "(25 reads)") || !strings.Contains(lines[0], "100%25 sure)%0Asecond line") ||
		lines[1] != "::notice title=OpenAI: components in scope changed::added Agents (01M3); removed Sora (01K9)" ||
		lines[2] != "::notice title=Anthropic: components in no place::new on the page, placed nowhere by the catalog: Claude 100%25 Design%0Anext (cd34)" {
		t.Errorf("annotations:\n%s", out)
	}
}
