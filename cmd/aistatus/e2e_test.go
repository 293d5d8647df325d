package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/snapshot"
)

// freeAddr returns a loopback address with a port nobody listens on, for
// a command to listen on later (a test often needs the address before:
// the snapshot is built with it as its base URL). The port lies below the
// ports the kernel hands out for outgoing connections (32768 and up on
// Linux, 49152 and up on macOS): one among them, as the kernel picks for
// port 0, can be taken as the local port of one of the many loopback
// connections the parallel tests make before the command binds it. No port
// is handed out twice in a run.
func freeAddr(t *testing.T) string {
	t.Helper()
	handedOutMu.Lock()
	defer handedOutMu.Unlock()
	for range 1000 {
		port := 10000 + rand.IntN(32768-10000)
		if handedOut[port] {
			continue
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue // in use
		}
		ln.Close()
		handedOut[port] = true
		return ln.Addr().String()
	}
	t.Fatal("no free port from 10000 to 32767")
	return ""
}

var (
	handedOutMu sync.Mutex
	handedOut   = map[int]bool{}
)

// writeCatalog writes cat where --catalog can read it.
func writeCatalog(t *testing.T, cat catalog.Catalog) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "catalog.json")
	if err := os.WriteFile(path, cat.JSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// aistatus runs the CLI in-process and returns its exit code and output.
func aistatus(ctx context.Context, args ...string) (int, string) {
	var out, errs bytes.Buffer
	code := execute(ctx, append(args, "--log-format", "json"), &out, &errs)
	return code, out.String() + errs.String()
}

// cutCatalog is the embedded catalog with only the services named, still a
// catalog the commands accept: no alternative outside it, and no models
// (their gateways' maps name services cut away). A build of 26 services
// costs a test seconds it does not need.
func cutCatalog(t *testing.T, slugs ...string) catalog.Catalog {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	cat.Services = slices.DeleteFunc(cat.Services, func(svc catalog.Service) bool { return !slices.Contains(slugs, svc.Slug) })
	for i := range cat.Services {
		cat.Services[i].Alternatives = slices.DeleteFunc(slices.Clone(cat.Services[i].Alternatives), func(alt catalog.Alternative) bool { return !slices.Contains(slugs, alt.Slug) })
	}
	cat.Models = catalog.ModelCatalog{}
	return cat
}

// startCommand runs a long-running command (serve, run) until the test ends.
// It returns the command's output so far, its logs as JSON lines.
func startCommand(t *testing.T, args ...string) *syncBuffer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	out := new(syncBuffer)
	if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--drain") }) {
		// No load balancer watches a test: shut down at once.
		args = append(args, "--drain", "0")
	}
	go func() {
		defer close(done)
		if code := execute(ctx, append(args, "--log-format", "json"), out, out); code != 0 {
			t.Errorf("%s exited %d: %s", args[0], code, out)
		}
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Errorf("%s did not shut down", args[0])
		}
	})
	return out
}

// waitFor polls url until it answers 200 (the first snapshot is loaded).
func waitFor(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s never answered 200", url)
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func get(t *testing.T, url string) response {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, data}
}

func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("%v: %s", err, r.body)
	}
}

// TestEndToEnd builds against a fake of every status page and API host,
// serves the result and walks every endpoint over real HTTP.
func TestEndToEnd(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	world := buildtest.NewWorld(t, cat)
	started := time.Now().UTC().Add(-20 * time.Minute).Truncate(time.Second)
	world.Set("cohere", func(p *buildtest.Page) {
		p.Status = api.Degraded
		p.Incidents = []buildtest.Incident{{ID: "01JCOHERE", Name: "Increased latency on Embed", Severity: api.Minor, StartedAt: started}}
	})
	world.Set("pinecone", func(p *buildtest.Page) { p.FeedBroken = true })
	catalog := writeCatalog(t, world.Catalog)
	dir := filepath.Join(t.TempDir(), "public")
	addr := freeAddr(t)
	base := "http://" + addr

	if code, out := aistatus(context.Background(), "build", "--out", dir, "--catalog", catalog, "--base-url", base, "--timeout", "5s"); code != 0 {
		t.Fatalf("build exited %d: %s", code, out)
	}
	startCommand(t, "serve", "--dir", dir, "--addr", addr, "--catalog", catalog, "--rate-limit", "0", "--reload", "100ms")
	apiURL := base + "/api/v1"
	waitFor(t, apiURL+"/status")

	var status api.StatusDoc
	get(t, apiURL+"/status").decode(t, &status)
	if len(status.Services) != len(cat.Services) || status.License != api.License || !strings.Contains(status.Source, base) {
		t.Fatalf("status: %d services, license %q, source %q", len(status.Services), status.License, status.Source)
	}
	got := map[string]api.Status{}
	for _, s := range status.Services {
		got[s.Slug] = s.Status
		if s.LastChecked == nil {
			t.Errorf("%s: no lastChecked", s.Slug)
		}
	}
	for slug, want := range map[string]api.Status{
		"openai": api.Operational, "cohere": api.Degraded, "anthropic": api.Operational,
		"pinecone":   api.Unknown,                                      // feed broken: the host answers, no more
		"perplexity": api.Operational, "azure-openai": api.Operational, // RSS feed, no probe
	} {
		if got[slug] != want {
			t.Errorf("%s: %s, want %s", slug, got[slug], want)
		}
	}

	var detail api.ServiceDoc
	get(t, apiURL+"/services/cohere").decode(t, &detail)
	if len(detail.Incidents) != 1 || detail.Incidents[0].ID != "cohere-01JCOHERE" || detail.Uptime.H24 != nil {
		// One check is no time observed yet: uptime is null, not 0 or 100.
		t.Fatalf("cohere detail: %+v", detail)
	}
	var pinecone api.ServiceDoc
	get(t, apiURL+"/services/pinecone").decode(t, &pinecone)
	if pinecone.Sources.Feed.State != api.FeedError || pinecone.Sources.Probe.State != api.ProbeOK {
		t.Errorf("pinecone sources: %+v", pinecone.Sources)
	}
	if r := get(t, apiURL+"/services/nope"); r.status != 404 || r.header.Get("Content-Type") != snapshot.ContentProblem {
		t.Errorf("unknown slug: %d %s", r.status, r.header.Get("Content-Type"))
	}

	var list api.IncidentList
	get(t, apiURL+"/incidents?severity=minor&service=cohere").decode(t, &list)
	if len(list.Incidents) != 1 || list.Filters.Severity == nil || *list.Filters.Severity != "minor" || list.Filters.Since != nil {
		t.Fatalf("incidents: %+v", list)
	}
	if r := get(t, apiURL+"/incidents?since=never"); r.status != 400 {
		t.Errorf("bad since: %d", r.status)
	}

	var check api.CheckDoc
	get(t, apiURL+"/check?q=https://api.cohere.com/v1/chat").decode(t, &check)
	if !check.Tracked || check.Service.Slug != "cohere" || check.LatencyMs == nil || check.Verdict.Level != "degraded" {
		t.Fatalf("check: %+v", check)
	}
	before := world.Probes("cohere")
	get(t, apiURL+"/check?q=cohere")
	if world.Probes("cohere") != before {
		t.Error("a second check within 30 s probed again")
	}

	var oas map[string]any
	get(t, apiURL+"/openapi.json").decode(t, &oas)
	servers, _ := oas["servers"].([]any)
	if oas["openapi"] != "3.0.3" || len(servers) == 0 || servers[0].(map[string]any)["url"] != apiURL {
		t.Fatalf("openapi: version %v servers %v", oas["openapi"], oas["servers"])
	}

	exp := get(t, apiURL+"/export?format=csv")
	rows, err := csv.NewReader(bytes.NewReader(exp.body)).ReadAll()
	if err != nil || exp.header.Get("Content-Type") != snapshot.ContentCSV {
		t.Fatalf("export: %v %q", err, exp.header.Get("Content-Type"))
	}
	if strings.Join(rows[0], ",") != "slug,name,category,domain,status,lastChecked" || len(rows) != len(cat.Services)+1 {
		t.Fatalf("export: header %v, %d rows", rows[0], len(rows))
	}

	for _, path := range []string{"/status", "/services/openai", "/incidents", "/check?q=openai", "/openapi.json", "/export", "/nothing"} {
		r := get(t, apiURL+path)
		for _, h := range snapshot.CommonHeaders() {
			if h.Name == "Cache-Control" {
				continue
			}
			if r.header.Get(h.Name) != h.Value {
				t.Errorf("%s: %s = %q", path, h.Name, r.header.Get(h.Name))
			}
		}
	}

	// A second build is picked up by the running server without a restart.
	world.Set("cohere", func(p *buildtest.Page) {
		p.Status = api.Operational
		resolved := time.Now().UTC().Truncate(time.Second)
		p.Incidents[0].ResolvedAt = &resolved
	})
	if code, out := aistatus(context.Background(), "build", "--out", dir, "--catalog", catalog, "--base-url", base, "--timeout", "5s"); code != 0 {
		t.Fatalf("second build exited %d: %s", code, out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var d api.ServiceDoc
		get(t, apiURL+"/services/cohere").decode(t, &d)
		if d.Status == api.Operational && len(d.Incidents) == 1 && d.Incidents[0].EndedAt != nil {
			// Degraded counts as up: 100% over the time between the two builds.
			if d.Uptime.H24 == nil || *d.Uptime.H24 != 100 {
				t.Fatalf("cohere uptime after two builds: %v", d.Uptime.H24)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("new snapshot not served: %+v", d)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestEndToEndProbesOverruleCalmPage: our probes of an API fail while its
// official page stays calm. After three builds the service reads as a major
// outage in the API, on the page and in /check, each saying that the
// official page disagrees; uptime shows the downtime; and it all recovers.
func TestEndToEndProbesOverruleCalmPage(t *testing.T) {
	t.Parallel()
	// Perplexity and four others, which answer: its probe alone fails,
	// not most of them (which would be our own network).
	world := buildtest.NewWorld(t, cutCatalog(t, "perplexity", "openai", "anthropic", "groq", "mistral"))
	catalog := writeCatalog(t, world.Catalog)
	dir := filepath.Join(t.TempDir(), "public")
	addr := freeAddr(t)
	base := "http://" + addr
	apiURL := base + "/api/v1"
	build := func() {
		t.Helper()
		// The confirming re-probes run as in production, only closer
		// together: at the default 3 s they made most of the test's time.
		if code, out := aistatus(context.Background(), "build", "--out", dir, "--catalog", catalog, "--base-url", base, "--timeout", "5s",
			"--confirm-spacing", "50ms"); code != 0 {
			t.Fatalf("build exited %d: %s", code, out)
		}
	}
	// served waits until the server has the newest build of perplexity.
	served := func(ok func(api.ServiceDoc) bool) api.ServiceDoc {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			var d api.ServiceDoc
			get(t, apiURL+"/services/perplexity").decode(t, &d)
			if ok(d) {
				return d
			}
			if time.Now().After(deadline) {
				t.Fatalf("not served: %+v", d)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	build()
	startCommand(t, "serve", "--dir", dir, "--addr", addr, "--catalog", catalog, "--rate-limit", "0", "--reload", "100ms")
	waitFor(t, apiURL+"/status")
	world.Set("perplexity", func(p *buildtest.Page) { p.APIDown = true })
	for range 3 {
		build()
	}
	d := served(func(d api.ServiceDoc) bool { return d.Status == api.MajorOutage })
	dis := d.Sources.Disagreement
	if dis == nil || dis.Official != api.Operational || dis.Measured != api.MajorOutage || d.Sources.Feed.Status != api.Operational {
		t.Fatalf("perplexity while our probes fail: sources %+v", d.Sources)
	}
	if len(d.Incidents) != 1 || d.Incidents[0].Source != api.SourceProbe || d.Incidents[0].EndedAt != nil {
		t.Fatalf("perplexity incidents: %+v", d.Incidents)
	}
	var check api.CheckDoc
	get(t, apiURL+"/check?q=perplexity").decode(t, &check)
	if check.Verdict.Level != "down" || !strings.Contains(check.Verdict.Detail, "official status page says operational") {
		t.Errorf("check while our probes fail: %+v", check.Verdict)
	}
	if page := string(get(t, base+"/services/perplexity").body); !strings.Contains(page, "Our probes disagree with the official status page") {
		t.Error("the service page does not say that the official page disagrees")
	}

	world.Set("perplexity", func(p *buildtest.Page) { p.APIDown = false })
	build()
	d = served(func(d api.ServiceDoc) bool { return d.Status == api.Degraded })
	if d.Sources.Disagreement == nil || d.Incidents[0].EndedAt != nil {
		t.Fatalf("first answer: our incident stays open, the page still disagrees: %+v", d)
	}
	build()
	d = served(func(d api.ServiceDoc) bool { return d.Status == api.Operational })
	if d.Sources.Disagreement != nil || d.Incidents[0].EndedAt == nil {
		t.Fatalf("recovered: %+v", d)
	}
	var after api.CheckDoc
	get(t, apiURL+"/check?q=perplexity").decode(t, &after)
	if after.Verdict.Level != "up" || after.Verdict.Detail != "" {
		t.Errorf("check after recovery: %+v", after.Verdict)
	}
	// Uptime counts the outage from the third failed probe (when our
	// incident opened) to the first answer.
	if d.Uptime.H24 == nil || *d.Uptime.H24 >= 100 {
		t.Errorf("perplexity 24h uptime %v: the outage is not in it", d.Uptime.H24)
	}
}

// TestServeWithoutSnapshot: serve pointed at a folder that does not exist
// (a typo) keeps answering 503 with Retry-After, as a folder a builder has
// yet to fill must, but says so in its log, with the absolute path.
func TestServeWithoutSnapshot(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "pubilc")
	addr := freeAddr(t)
	out := startCommand(t, "serve", "--dir", dir, "--addr", addr, "--reload", "100ms")
	deadline := time.Now().Add(10 * time.Second)
	for len(warnings(t, out.String())) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no warning about the missing snapshot: %s", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if w := warnings(t, out.String())[0]; w.Level != "warn" || w.Dir != dir || w.Reason != "the folder does not exist" {
		t.Errorf("warning: %+v", w)
	}
	// The warning may come before the listener is up: wait for the server's log line.
	for !strings.Contains(out.String(), `"message":"serving"`) {
		if time.Now().After(deadline) {
			t.Fatalf("never served: %s", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	r := get(t, "http://"+addr+"/api/v1/status")
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Errorf("without a snapshot: %d, Retry-After %q", r.status, r.header.Get("Retry-After"))
	}
}

// TestRunWithoutNetwork: with every status page and API host unreachable,
// run still starts, serves every endpoint and reports every service as
// unknown, never as an outage.
func TestRunWithoutNetwork(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + freeAddr(t) // nothing listens there: connections are refused
	for i := range cat.Services {
		svc := &cat.Services[i]
		svc.Feed.URL = dead + "/" + svc.Slug + "/feed"
		if svc.Feed.IncidentsURL != "" {
			svc.Feed.IncidentsURL = dead + "/" + svc.Slug + "/incidents"
		}
		if svc.ProbeURL != "" {
			svc.ProbeURL = dead + "/" + svc.Slug + "/probe"
		}
		svc.Surfaces = slices.Clone(svc.Surfaces)
		for j, sf := range svc.Surfaces {
			if sf.ProbeURL != "" {
				svc.Surfaces[j].ProbeURL = dead + "/" + svc.Slug + "/" + string(sf.ID)
			}
		}
	}
	catalog := writeCatalog(t, cat)
	addr := freeAddr(t)
	apiURL := "http://" + addr + "/api/v1"
	out := startCommand(t, "run", "--out", filepath.Join(t.TempDir(), "public"), "--catalog", catalog, "--addr", addr, "--every", "200ms", "--timeout", "2s", "--reload", "100ms", "--rate-limit", "0",
		"--confirm-spacing", "50ms")
	waitFor(t, apiURL+"/status")
	// The folder was empty until the first build: run must not call that a problem.
	if w := warnings(t, out.String()); len(w) != 0 {
		t.Errorf("run warned about its own first build: %+v", w)
	}

	// Let more cycles pass than it takes to open a probe incident.
	var status api.StatusDoc
	seen := map[time.Time]bool{}
	for deadline := time.Now().Add(30 * time.Second); len(seen) < api.ProbeIncidentAfter+2; {
		if time.Now().After(deadline) {
			t.Fatalf("only %d cycles published", len(seen))
		}
		get(t, apiURL+"/status").decode(t, &status)
		seen[status.Timestamp] = true
		time.Sleep(20 * time.Millisecond)
	}
	// No --base-url: the links and the attribution point at the address served.
	if want := "(http://" + addr + ")"; !strings.Contains(status.Source, want) {
		t.Errorf("source %q does not name %s", status.Source, want)
	}
	for _, s := range status.Services {
		if s.Status != api.Unknown {
			t.Errorf("%s: %s, want unknown", s.Slug, s.Status)
		}
	}
	var list api.IncidentList
	get(t, apiURL+"/incidents").decode(t, &list)
	if len(list.Incidents) != 0 {
		t.Errorf("incidents opened with no network: %+v", list.Incidents)
	}
	var check api.CheckDoc
	get(t, apiURL+"/check?q=openai").decode(t, &check)
	if check.Verdict.Level != "unknown" || check.LatencyMs != nil {
		t.Errorf("check: %+v", check.Verdict)
	}
	for _, path := range []string{"/services/openai", "/openapi.json", "/export"} {
		if r := get(t, apiURL+path); r.status != 200 {
			t.Errorf("%s: %d", path, r.status)
		}
	}
}

func TestCatalogCommand(t *testing.T) {
	t.Parallel()
	code, out := aistatus(context.Background(), "catalog")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	cat, err := catalog.Parse([]byte(out))
	embedded, _ := catalog.Default()
	if err != nil || !slices.Equal(cat.Slugs(), embedded.Slugs()) {
		t.Fatalf("catalog output does not parse back to the embedded catalog: %v, %v", err, cat.Slugs())
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"services":[{"slug":"Bad Slug"}]}`), 0o644)
	if code, out := aistatus(context.Background(), "catalog", "--catalog", bad); code != 1 || !strings.Contains(out, "Bad Slug") {
		t.Fatalf("invalid catalog: exit %d: %s", code, out)
	}
}

func TestEnvironmentFlags(t *testing.T) {
	t.Setenv("AISTATUS_CATALOG", filepath.Join(t.TempDir(), "missing.json"))
	if code, out := aistatus(context.Background(), "catalog"); code != 1 || !strings.Contains(out, "missing.json") {
		t.Fatalf("AISTATUS_CATALOG ignored: exit %d: %s", code, out)
	}
}

func TestCheckAndVersionCommands(t *testing.T) {
	t.Parallel()
	cat, _ := catalog.Default()
	world := buildtest.NewWorld(t, cat)
	catalog := writeCatalog(t, world.Catalog)
	dir := filepath.Join(t.TempDir(), "public")
	if code, out := aistatus(context.Background(), "build", "--out", dir, "--catalog", catalog); code != 0 {
		t.Fatalf("build: %s", out)
	}
	code, out := aistatus(context.Background(), "check", "--dir", dir, "--catalog", catalog, "https://api.anthropic.com/v1/messages")
	if code != 0 || !strings.Contains(out, "Anthropic API is up") {
		t.Fatalf("check: exit %d: %s", code, out)
	}
	// Untracked is UNKNOWN (3) in the monitoring-plugin convention; the suggestion is still printed.
	if code, out := aistatus(context.Background(), "check", "--dir", dir, "opneai"); code != exitUnknown || !strings.Contains(out, "OpenAI") {
		t.Fatalf("check suggestion: exit %d: %s", code, out)
	}
	if code, out := aistatus(context.Background(), "version"); code != 0 || !strings.HasPrefix(out, "aistatus ") {
		t.Fatalf("version: %d %s", code, out)
	}
}
