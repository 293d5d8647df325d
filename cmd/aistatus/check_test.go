package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/snapshot"
)

// publishStatuses publishes a snapshot generated at genTime in which each
// slug of statuses has that status and every other service is operational.
// Every probe URL of the returned catalog file points at a loopback fake, so
// check's live probe never leaves the machine.
func publishStatuses(t *testing.T, genTime time.Time, statuses map[string]snapshot.Status) (dir, catalog string) {
	t.Helper()
	cat, err := snapshot.DefaultCatalog()
	if err != nil {
		t.Fatal(err)
	}
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(fake.Close)
	for i := range cat.Services {
		if cat.Services[i].ProbeURL != "" {
			cat.Services[i].ProbeURL = fake.URL + "/" + cat.Services[i].Slug
		}
	}
	h := snapshot.NewHistory()
	states := map[string]build.ServiceState{}
	for _, svc := range cat.Services {
		st, ok := statuses[svc.Slug]
		if !ok {
			st = snapshot.Operational
		}
		h.Service(svc.Slug).Record(genTime, st, new(100.0))
		states[svc.Slug] = build.ServiceState{Status: st}
	}
	files, err := build.Render(build.Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "test"}, cat, h, states, genTime)
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(t.TempDir(), "public")
	if err := snapshot.Publish(dir, files); err != nil {
		t.Fatal(err)
	}
	return dir, writeCatalog(t, cat)
}

// TestCheckExitCodes: check exits as a monitoring plugin does — 0 up,
// 1 degraded or maintenance, 2 down, 3 unknown, stale, untracked or failed —
// and --json changes the output, never the code.
func TestCheckExitCodes(t *testing.T) {
	fresh, catalog := publishStatuses(t, time.Now(), map[string]snapshot.Status{
		"anthropic":     snapshot.Degraded,
		"google-gemini": snapshot.PartialOutage,
		"mistral":       snapshot.MajorOutage,
		"cohere":        snapshot.Maintenance,
		"groq":          snapshot.Unknown,
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
				var doc snapshot.CheckDoc
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

// TestCheckExitCodeTable: every level /check can answer has a code, and
// only "up" is OK.
func TestCheckExitCodeTable(t *testing.T) {
	for level, want := range map[string]int{
		"up": 0, "degraded": 1, "maintenance": 1, "down": 2,
		"unknown": 3, "stale": 3, "untracked": 3, "a-level-added-later": 3,
	} {
		if got := checkExitCode(level); got != want {
			t.Errorf("checkExitCode(%q) = %d, want %d", level, got, want)
		}
	}
}
