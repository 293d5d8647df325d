package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/snapshot"
	"gopkg.in/yaml.v3"
)

// workflowSteps returns the run scripts of the snapshot workflow's build job,
// by step id.
func workflowSteps(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "snapshot.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				ID  string `yaml:"id"`
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	steps := map[string]string{}
	for _, s := range wf.Jobs["build"].Steps {
		if s.ID != "" {
			steps[s.ID] = s.Run
		}
	}
	for _, id := range []string{"compile", "restore", "build"} {
		if steps[id] == "" {
			t.Fatalf("snapshot.yml has no build-job step %q", id)
		}
	}
	return steps
}

// runStep runs a workflow step's script the way GitHub Actions runs a bash
// step, in dir, with env added.
func runStep(t *testing.T, script, dir string, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestSnapshotWorkflowCarriesHistory runs the scheduled workflow's restore and
// build steps as the workflow does — first with nothing published, then with
// the previous run's output published — and checks the history carries over.
func TestSnapshotWorkflowCarriesHistory(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed: the workflow's restore step needs it")
	}
	steps := workflowSteps(t)
	cat, err := snapshot.DefaultCatalog()
	if err != nil {
		t.Fatal(err)
	}
	world := buildtest.NewWorld(t, cat)
	catalog := writeCatalog(t, world.Catalog)

	// The compile step, run from the repository root into a scratch folder.
	bin := t.TempDir()
	compile := strings.ReplaceAll(steps["compile"], "-o bin/aistatus", "-o "+filepath.Join(bin, "bin", "aistatus"))
	if out, err := runStep(t, compile, filepath.Join("..", "..")); err != nil {
		t.Fatalf("compile step: %v\n%s", err, out)
	}

	// The published site: 404 until something is published, 500 on demand.
	var (
		mu        sync.Mutex
		published string
		broken    bool
	)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		dir, fail := published, broken
		mu.Unlock()
		switch {
		case fail:
			http.Error(w, "upstream error", http.StatusInternalServerError)
		case dir == "":
			http.NotFound(w, r)
		default:
			http.FileServer(http.Dir(dir)).ServeHTTP(w, r)
		}
	}))
	t.Cleanup(site.Close)

	run := func() (string, string, error) {
		work := t.TempDir()
		if err := os.Symlink(filepath.Join(bin, "bin"), filepath.Join(work, "bin")); err != nil {
			t.Fatal(err)
		}
		env := []string{"SITE_URL=" + site.URL, "AISTATUS_CATALOG=" + catalog, "AISTATUS_TIMEOUT=5s"}
		out, err := runStep(t, steps["restore"], work, env...)
		if err != nil {
			return work, out, err
		}
		more, err := runStep(t, steps["build"], work, env...)
		return work, out + more, err
	}
	history := func(dir string) *snapshot.History {
		h, _, err := snapshot.ReadHistory(filepath.Join(dir, "public"))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}

	first, out, err := run()
	if err != nil || !strings.Contains(out, "starting afresh") {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	h1 := history(first)
	if len(h1.Services) != 26 {
		t.Fatalf("first run recorded %d services", len(h1.Services))
	}
	if _, err := os.Stat(filepath.Join(first, "public", ".nojekyll")); err != nil {
		t.Error("no .nojekyll: GitHub Pages would hide .well-known")
	}

	mu.Lock()
	published = filepath.Join(first, "public")
	mu.Unlock()
	second, out, err := run()
	if err != nil || !strings.Contains(out, "restored history") {
		t.Fatalf("second run: %v\n%s", err, out)
	}
	h2 := history(second)
	for slug, before := range h1.Services {
		after := h2.Services[slug]
		if after == nil || !after.LastChecked.After(before.LastChecked) || len(after.Buckets) == 0 {
			t.Fatalf("%s: history did not carry over: before %+v, after %+v", slug, before, after)
		}
	}
	var doc snapshot.ServiceDoc
	readJSON(t, filepath.Join(second, "public", snapshot.ServiceFile("openai")), &doc)
	if doc.Uptime.H24 == nil {
		t.Fatal("uptime is still null after two runs: the first run's check was lost")
	}

	mu.Lock()
	broken = true
	mu.Unlock()
	third, out, err := run()
	if err == nil || !strings.Contains(out, "keep the history") {
		t.Fatalf("a failed restore did not stop the run: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(third, "public", snapshot.FileStatus)); err == nil {
		t.Fatal("a snapshot was built without its history")
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
