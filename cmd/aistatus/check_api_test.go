package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/outbound"
	"github.com/aistatus/aistatus/serve"
	"github.com/rs/zerolog"
)

// serveSnapshot serves the snapshot in dir with catalogPath as aistatus serve
// does, on loopback, and records the User-Agent of each request to it.
func serveSnapshot(t *testing.T, dir, catalogPath string) (url string, agents func() []string) {
	t.Helper()
	cat, err := catalog.Load(catalogPath)
	if err != nil {
		t.Fatal(err)
	}
	srv := serve.New(serve.Options{Dir: dir, Catalog: cat, Log: zerolog.Nop(), Now: time.Now,
		Client: outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(cat)}), Version: "test"})
	if _, err := srv.Store().Reload(); err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		seen []string
	)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("User-Agent"))
		mu.Unlock()
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// TestCheckAPI: check --api asks a running instance's /check and prints
// the same verdict as from a folder: the headline with the performance
// data, the detail line (an unread feed, our probes overruling the page),
// the exit code of the status; the request carries our User-Agent.
func TestCheckAPI(t *testing.T) {
	t.Parallel()
	latency := 250.0
	dir, catalog := publishStates(t, time.Now(), map[string]build.ServiceState{
		"groq": {Status: api.Unknown, Sources: api.Sources{
			Feed:  api.FeedSource{State: api.FeedError},
			Probe: api.ProbeSource{State: api.ProbeOK, LatencyMs: &latency, HTTPStatus: 401},
		}},
		"openai": {Status: api.Operational, Sources: api.Sources{
			Feed:  api.FeedSource{State: api.FeedOK, Status: api.Operational},
			Probe: api.ProbeSource{State: api.ProbeOK, LatencyMs: &latency, HTTPStatus: 401},
		}},
		"anthropic": {Status: api.MajorOutage, Sources: api.Sources{
			Feed:  api.FeedSource{State: api.FeedOK, Status: api.Operational},
			Probe: api.ProbeSource{State: "failed"},
			Disagreement: &api.Disagreement{Since: time.Now().Add(-10 * time.Minute), Official: api.Operational,
				Measured: api.MajorOutage, Detail: "Its status page says operational, but our last 5 probes of its API host failed."},
		}},
	})
	apiURL, agents := serveSnapshot(t, dir, catalog)
	perf := regexp.MustCompile(`\| latency_ms=[0-9]+;;;0$`)
	for _, tc := range []struct {
		query  string
		code   int
		first  *regexp.Regexp // the first line
		detail string         // the second line
	}{
		{"groq", exitUnknown, regexp.MustCompile(`^❔ .*Groq.* \| latency_ms=[0-9]+;;;0$`), "Groq's status page could not be read this time"},
		{"anthropic", exitCritical, perf, "Its status page says operational, but our last 5 probes of its API host failed."},
		{"openai", exitOK, perf, "API answered in"}, // no detail to give
		{"opneai", exitUnknown, regexp.MustCompile(`\| latency_ms=U;;;0$`), "Did you mean"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := execute(context.Background(), []string{"check", "--api", apiURL, tc.query}, &stdout, &stderr)
			lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			if code != tc.code || stderr.Len() != 0 || len(lines) < 2 {
				t.Fatalf("exit %d (want %d), stdout %q, stderr %q", code, tc.code, stdout.String(), stderr.String())
			}
			if !tc.first.MatchString(lines[0]) {
				t.Errorf("first line %q does not match %s", lines[0], tc.first)
			}
			if !strings.Contains(lines[1], tc.detail) {
				t.Errorf("second line %q lacks %q", lines[1], tc.detail)
			}
		})
	}
	for _, ua := range agents() {
		if ua != outbound.UserAgent {
			t.Errorf("request to --api with User-Agent %q", ua)
		}
	}

	// --json prints the server's document; --error reaches the server.
	var stdout, stderr strings.Builder
	code := execute(context.Background(), []string{"check", "--api", apiURL, "anthropic", "--error", "529", "--json"}, &stdout, &stderr)
	var doc api.CheckDoc
	if err := json.Unmarshal([]byte(stdout.String()), &doc); err != nil || code != exitCritical {
		t.Fatalf("--json: exit %d, %v: %s %s", code, err, stdout.String(), stderr.String())
	}
	if doc.Verdict.Action != api.ActionFailover || doc.Error == nil || *doc.Error != "529" {
		t.Errorf("--json verdict %+v", doc.Verdict)
	}
}

// TestCheckAPIErrors: each way --api can fail says what went wrong, on
// stderr, with exit 3.
func TestCheckAPIErrors(t *testing.T) {
	t.Parallel()
	dir, catalog := publishStatuses(t, time.Now(), nil)
	api, _ := serveSnapshot(t, dir, catalog)
	empty, _ := serveSnapshot(t, filepath.Join(t.TempDir(), "none"), catalog)
	notOurs := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notOurs.Close)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(slow.Close)
	for _, tc := range []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"bad --error", []string{"--api", api, "openai", "--error", "600"}, []string{"--error:", "HTTP status"}},
		{"bad --code", []string{"--api", api, "openai", "--code", "not a code"}, []string{"--code:"}},
		{"no snapshot there", []string{"--api", empty, "openai"}, []string{"has no snapshot to answer from yet"}},
		{"not aistatus", []string{"--api", notOurs.URL, "openai"}, []string{"is it an aistatus instance?"}},
		{"unreachable", []string{"--api", gone.URL, "openai"}, []string{"--api " + gone.URL, "unreachable"}},
		{"too slow", []string{"--api", slow.URL, "--timeout", "200ms", "openai"}, []string{"did not answer in time"}},
		{"not a URL", []string{"--api", "status.example.com", "openai"}, []string{"absolute http(s) address"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := execute(context.Background(), append([]string{"check"}, tc.args...), &stdout, &stderr)
			if code != exitUnknown || stdout.Len() != 0 {
				t.Errorf("exit %d, stdout %q", code, stdout.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr %q lacks %q", stderr.String(), w)
				}
			}
		})
	}
}

// TestCheckAPIPrintsNoControls: check --api prints a remote server's words
// to a terminal, and that server (or its origin's catalog) may be hostile:
// no raw control character (ESC, BEL, the one-byte CSI), invisible format
// character (a bidi override) or byte that is not UTF-8 reaches the output,
// in a verdict or in a refusal's detail; the line ends are check's own.
func TestCheckAPIPrintsNoControls(t *testing.T) {
	t.Parallel()
	const hostile = "Open\x1b]0;pwned\x07AI\u009b2J\u202e\xff"
	latency := 12.0
	poll, retry := 30, 5
	doc := api.CheckDoc{
		Query: "openai", Tracked: true,
		Service:       &api.CheckService{Slug: "openai", Name: hostile, Domain: "openai.com"},
		Surface:       &api.CheckSurface{ID: "app", Name: hostile},
		OtherSurfaces: []api.CheckOtherSurface{{ID: "agent", Name: hostile, Status: api.Operational}},
		LatencyMs:     &latency,
		Verdict: api.Verdict{Level: "down", Emoji: "🔴", Headline: hostile + " is down", Detail: "detail " + hostile,
			Suggestions: []string{hostile}, Action: api.ActionFailover, Blame: api.BlameProvider, Confidence: "high",
			Reason: "reason\r\n" + hostile, RetryAfterSeconds: &retry, PollAfterSeconds: &poll,
			ResumeWhen:   []api.ResumeCondition{{When: hostile}},
			Alternatives: []api.CheckAlternative{{Slug: "anthropic", Name: hostile, Status: api.Operational}}},
	}
	body, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("error") != "" {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(api.Problem{Type: "about:blank", Title: "Bad Request", Status: 400, Param: "error", Detail: "bad " + hostile})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	for _, args := range [][]string{{"openai"}, {"openai", "--error", "500"}} {
		var stdout, stderr strings.Builder
		code := execute(context.Background(), append([]string{"check", "--api", srv.URL}, args...), &stdout, &stderr)
		out := stdout.String() + stderr.String()
		if !strings.Contains(out, "Open ]0;pwned AI 2J") {
			t.Errorf("%v: exit %d, the name not printed cleaned:\n%s", args, code, out)
		}
		for _, r := range out {
			if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError) {
				t.Errorf("%v: %U printed:\n%q", args, r, out)
				break
			}
		}
		if len(args) > 1 {
			continue
		}
		// Every line is one of ours: the headline, then indented ones; a
		// line end in the reason is not one.
		lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
		for i, line := range lines {
			if !strings.HasPrefix(line, "   ") && (i > 0 || !strings.HasPrefix(line, "🔴 ")) {
				t.Errorf("line %d is not one of check's: %q", i+1, line)
			}
		}
		if len(lines) != 9 {
			t.Errorf("%d lines, want 9:\n%s", len(lines), out)
		}
	}
}
