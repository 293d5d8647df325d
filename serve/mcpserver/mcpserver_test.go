// The tests live in an external package so that they can drive a real
// serve.Server: serve imports mcpserver, so an internal test could not.
package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/models"
	"github.com/aistatus/aistatus/serve"
	"github.com/aistatus/aistatus/serve/mcpserver"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"
)

var genTime = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// newServer publishes a snapshot generated at genTime — openai degraded,
// every other service operational, three incidents in the default window and
// one older — and serves it with the clock a minute later. Every probe URL
// points at a loopback fake, so /check's live probe never leaves the machine.
func newServer(t *testing.T, rateLimit int) *serve.Server {
	t.Helper()
	srv, _, _ := newServerDir(t, rateLimit)
	return srv
}

// newServerDir is newServer, also returning the snapshot folder and the
// catalog, for a test that publishes a newer snapshot (publish).
func newServerDir(t *testing.T, rateLimit int) (*serve.Server, string, catalog.Catalog) {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	fakeAPI := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized) // what a real API host says to a probe without a key
	}))
	t.Cleanup(fakeAPI.Close)
	for i := range cat.Services {
		svc := &cat.Services[i]
		if svc.ProbeURL != "" {
			svc.ProbeURL = fakeAPI.URL + "/" + svc.Slug
		}
		// A surface's own host (claude.ai) is probed too.
		svc.Surfaces = slices.Clone(svc.Surfaces)
		for j, sf := range svc.Surfaces {
			if sf.ProbeURL != "" {
				svc.Surfaces[j].ProbeURL = fakeAPI.URL + "/" + svc.Slug + "/" + string(sf.ID)
			}
		}
	}

	dir := filepath.Join(t.TempDir(), "public")
	publish(t, dir, cat, genTime)
	srv := serve.New(serve.Options{Dir: dir, Catalog: cat, RateLimit: rateLimit, Log: zerolog.Nop(),
		Now: func() time.Time { return genTime.Add(time.Minute) }, Client: fakeAPI.Client(), Version: "test"})
	if ok, err := srv.Store().Reload(); !ok || err != nil {
		t.Fatalf("reload: %v %v", ok, err)
	}
	return srv, dir, cat
}

// publish writes the test snapshot, generated at genAt, into dir.
func publish(t *testing.T, dir string, cat catalog.Catalog, genAt time.Time) {
	t.Helper()
	genTime := genAt
	ended := genTime.Add(-47 * time.Hour)
	h := history.New()
	h.Incidents = []api.Incident{
		{ID: "openai-01", Service: "openai", Headline: "Elevated errors", Severity: api.Major, StartedAt: genTime.Add(-time.Hour), Status: "investigating", Source: api.SourceOfficial, UpdatedAt: genTime},
		{ID: "anthropic-02", Service: "anthropic", Headline: "Slow responses", Severity: api.Minor, StartedAt: genTime.Add(-30 * time.Hour), EndedAt: &ended, Status: "resolved", Source: api.SourceOfficial, UpdatedAt: ended},
		{ID: "openai-03", Service: "openai", Headline: "Outage", Severity: api.Critical, StartedAt: genTime.Add(-10 * 24 * time.Hour), EndedAt: &ended, Status: "resolved", Source: api.SourceOfficial, UpdatedAt: ended},
		{ID: "groq-04", Service: "groq", Headline: "Old outage", Severity: api.Major, StartedAt: genTime.Add(-40 * 24 * time.Hour), EndedAt: &ended, Status: "resolved", Source: api.SourceProbe, UpdatedAt: ended},
	}
	states := map[string]build.ServiceState{}
	for _, svc := range cat.Services {
		st := api.Operational
		if svc.Slug == "openai" {
			st = api.Degraded
		}
		h.Track(svc.Slug).Record(genTime.Add(-time.Hour), st, new(100.0))
		h.Track(svc.Slug).Record(genTime, st, new(120.0))
		latency := 120.0
		states[svc.Slug] = build.ServiceState{Status: st, Sources: api.Sources{
			Feed:  api.FeedSource{Format: svc.Feed.Format, State: api.FeedOK, Status: st},
			Probe: api.ProbeSource{State: api.ProbeOK, LatencyMs: &latency, HTTPStatus: 401},
		}, CheckedAt: genTime}
	}
	// Claude Sonnet 4.5 fails at Anthropic and is fine on Bedrock, by the gateway.
	uptime := func(v float64) map[string]*float64 { return map[string]*float64{"5m": &v, "30m": &v, "1d": &v} }
	vercelUp, ttft50, ttft95 := 99.8, 675.0, 2717.0
	models.AssembleModels(h, cat, nil, map[string]map[string]models.GatewayRead{catalog.GatewayOpenRouter: {
		"anthropic/claude-sonnet-4.5": {Endpoints: []feed.GatewayEndpoint{
			{Provider: "Anthropic", Tag: "anthropic", Uptime: uptime(60)}, {Provider: "Amazon Bedrock", Tag: "amazon-bedrock", Uptime: uptime(99.9)}}},
	}, catalog.GatewayVercel: {
		// Vercel sees Bedrock up too, with its time to first token.
		"anthropic/claude-sonnet-4.5": {Endpoints: []feed.GatewayEndpoint{{Provider: "bedrock", Tag: "bedrock",
			Uptime: map[string]*float64{"15m": &vercelUp, "1h": &vercelUp, "1d": &vercelUp}, LatencyP50Ms: &ttft50, LatencyP95Ms: &ttft95}}},
	}}, genTime, zerolog.Nop())
	// claude.ai is down while Anthropic's API is up, with an incident of
	// its own in the history.
	anthropic := states["anthropic"]
	anthropic.Surfaces = []feed.SurfaceResult{{ID: catalog.SurfaceApp, Status: api.MajorOutage}}
	states["anthropic"] = anthropic
	h.Track("anthropic").Surface(catalog.SurfaceApp).Incidents = []api.Incident{{ID: "anthropic-05", Service: "anthropic",
		Headline: "claude.ai unavailable", Severity: api.Major, StartedAt: genTime.Add(-10 * time.Minute), Status: "investigating",
		Source: api.SourceOfficial, UpdatedAt: genTime}}
	files, err := build.Render(build.Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "test"}, cat, h, states, genTime)
	if err != nil {
		t.Fatal(err)
	}
	if err := snapshot.Publish(dir, files); err != nil {
		t.Fatal(err)
	}
}

// connect connects an SDK client to an MCP server over in-memory transports.
func connect(t *testing.T, server *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool that must succeed and decodes its structured content
// into out. It returns the text summary.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) string {
	t.Helper()
	res := callRaw(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s %v: tool error: %s", name, args, textOf(res))
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, data, err)
	}
	// Every result carries the licence and the credit line, in both forms.
	var licence struct{ License, Attribution string }
	json.Unmarshal(data, &licence)
	if licence.License != api.License || !strings.Contains(licence.Attribution, "aistatus") {
		t.Errorf("%s: license %q, attribution %q", name, licence.License, licence.Attribution)
	}
	text := textOf(res)
	if !strings.Contains(text, api.License) || !strings.Contains(text, licence.Attribution) {
		t.Errorf("%s: text summary does not give the licence and the credit line %q: %s", name, licence.Attribution, text)
	}
	return text
}

// callRaw calls a tool; a protocol error fails the test.
func callRaw(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", name, args, err)
	}
	return res
}

func textOf(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// assertToolError asserts that a call ends in a tool error (IsError, not a
// protocol error) whose message contains each of want.
func assertToolError(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, want ...string) {
	t.Helper()
	res := callRaw(t, cs, name, args)
	text := textOf(res)
	if !res.IsError {
		t.Fatalf("%s %v: not an error: %s", name, args, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s %v: error %q does not contain %q", name, args, text, w)
		}
	}
}

func TestTools(t *testing.T) {
	t.Parallel()
	srv := newServer(t, 0)
	cs := connect(t, mcpserver.New(mcpserver.InProcess(srv.APIHandler()), "test"))

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]map[string]any{}
	for _, tool := range tools.Tools {
		schema, _ := tool.InputSchema.(map[string]any)
		if schema["type"] != "object" || tool.OutputSchema == nil || tool.Description == "" || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: input schema %v, output schema %v, annotations %+v", tool.Name, tool.InputSchema, tool.OutputSchema != nil, tool.Annotations)
		}
		schemas[tool.Name] = schema
	}
	if len(schemas) != 5 || schemas["get_status"] == nil || schemas["get_service"] == nil || schemas["list_incidents"] == nil || schemas["check_service"] == nil || schemas["plan_fallback"] == nil {
		t.Fatalf("tools: %v", schemas)
	}
	if req, _ := json.Marshal(schemas["get_service"]["required"]); string(req) != `["slug"]` {
		t.Errorf("get_service required: %s", req)
	}
	severity, _ := json.Marshal(schemas["list_incidents"]["properties"].(map[string]any)["severity"].(map[string]any)["enum"])
	if string(severity) != `["minor","major","critical"]` {
		t.Errorf("list_incidents severity enum: %s", severity)
	}

	var status mcpserver.StatusResult
	text := call(t, cs, "get_status", nil, &status)
	if len(status.Services) != catalogSize(t) || status.Services[0].Slug == "" || !strings.Contains(status.Source, "https://aistatus.example") {
		t.Errorf("get_status: %d services, source %q", len(status.Services), status.Source)
	}
	// The test snapshot has every service operational but OpenAI.
	if !strings.Contains(text, fmt.Sprintf("%d up, 1 degraded", catalogSize(t)-1)) || !strings.Contains(text, "OpenAI (openai): degraded") {
		t.Errorf("get_status summary: %s", text)
	}

	var svc mcpserver.ServiceResult
	text = call(t, cs, "get_service", map[string]any{"slug": "openai"}, &svc)
	if svc.Slug != "openai" || svc.Status != api.Degraded || svc.Uptime.H24 == nil || *svc.Uptime.H24 != 100 ||
		len(svc.Incidents) != 2 || svc.Sources.Feed.State != api.FeedOK {
		t.Errorf("get_service openai: %+v", svc)
	}
	// The snapshot holds an hour of checks: too little of any window for a
	// figure a model should repeat.
	if !strings.Contains(text, "is degraded") || !strings.Contains(text, "24h not enough data") || !strings.Contains(text, "1 ongoing") {
		t.Errorf("get_service summary: %s", text)
	}
	// One incident is one, not "1 incidents".
	if text = call(t, cs, "get_service", map[string]any{"slug": "anthropic"}, &svc); !strings.Contains(text, " 1 incident retained") ||
		!strings.Contains(text, "other surfaces: claude.ai (app) is major_outage, 1 incident open; Claude Code (agent) is unknown, 0 incidents open") ||
		len(svc.Surfaces) != 4 || svc.Surfaces[1].ID != catalog.SurfaceApp || svc.Surfaces[1].Status != api.MajorOutage {
		t.Errorf("get_service anthropic summary: %s", text)
	}

	var list mcpserver.IncidentsResult
	text = call(t, cs, "list_incidents", map[string]any{"severity": "major"}, &list)
	// groq-04 is major too, but older than the default 30-day window.
	if len(list.Incidents) != 1 || list.Incidents[0].ID != "openai-01" || list.Filters.Severity == nil || *list.Filters.Severity != "major" ||
		list.Window == nil || list.Window.Limit != 100 {
		t.Errorf("list_incidents severity=major: %+v", list)
	}
	if !strings.Contains(text, `"Elevated errors"`) {
		t.Errorf("list_incidents summary: %s", text)
	}
	call(t, cs, "list_incidents", map[string]any{"since": "2026-09-01", "service": "openai", "limit": 1}, &list)
	if len(list.Incidents) != 1 || !list.Window.Truncated || *list.Filters.Service != "openai" || *list.Filters.Since != "2026-09-01" {
		t.Errorf("list_incidents since, service, limit: %+v", list)
	}

	var check mcpserver.CheckResult
	text = call(t, cs, "check_service", map[string]any{"query": "api.anthropic.com"}, &check)
	if !check.Tracked || check.Service == nil || check.Service.Slug != "anthropic" || check.Status == nil ||
		*check.Status != api.Operational || check.Verdict.Level != "up" || check.LatencyMs == nil ||
		check.Surface == nil || check.Surface.ID != catalog.SurfaceAPI {
		t.Errorf("check_service api.anthropic.com: %+v", check)
	}
	if !strings.Contains(text, "Anthropic API is up") || !strings.Contains(text, "Also: claude.ai is down (major outage) per the official status page.") ||
		len(check.OtherSurfaces) != 1 || check.OtherSurfaces[0].ID != catalog.SurfaceApp {
		t.Errorf("check_service summary: %s", text)
	}
	// claude.ai is the app surface: its status, and a probe of its own
	// host, not the API's.
	text = call(t, cs, "check_service", map[string]any{"query": "claude.ai"}, &check)
	if check.Surface == nil || check.Surface.ID != catalog.SurfaceApp || check.Verdict.Level != "down" || check.LatencyMs == nil ||
		!strings.Contains(text, "claude.ai is down (major outage)") || !strings.Contains(text, "claude.ai's host answered in") ||
		strings.Contains(text, "Its API answered") || len(check.Verdict.Alternatives) != 0 {
		t.Errorf("check_service claude.ai: %s %+v", text, check)
	}
	// error: the advice for what the caller just got. openai has an open
	// official incident and Azure OpenAI is up: fail over.
	text = call(t, cs, "check_service", map[string]any{"query": "openai", "error": "529"}, &check)
	if check.Error == nil || *check.Error != "529" || check.Verdict.Action != api.ActionFailover || check.Verdict.Blame != api.BlameProvider ||
		len(check.Verdict.Alternatives) == 0 || check.Verdict.Alternatives[0].Slug != "azure-openai" || len(check.Verdict.Evidence) == 0 {
		t.Errorf("check_service openai error 529: %+v", check)
	}
	if !strings.Contains(text, "Action: failover (blame: provider") || !strings.Contains(text, "Azure OpenAI (azure-openai, operational)") ||
		!strings.Contains(text, "Check again in ") || !strings.Contains(text, "(event incident.resolved, subject openai)") {
		t.Errorf("check_service error summary: %s", text)
	}
	// error as a JSON number is the same question as the string.
	call(t, cs, "check_service", map[string]any{"query": "openai", "error": 529}, &check)
	if check.Error == nil || *check.Error != "529" || check.Verdict.Action != api.ActionFailover {
		t.Errorf("check_service openai error 529 as a number: %+v", check)
	}
	call(t, cs, "check_service", map[string]any{"query": "claude", "error": "401"}, &check)
	if check.Verdict.Action != api.ActionFixClient || check.Verdict.Blame != api.BlameClient || check.Verdict.Confidence != api.ConfidenceHigh {
		t.Errorf("check_service claude error 401: %+v", check.Verdict)
	}
	// code and retryAfter: the provider's word on what the 429 is.
	call(t, cs, "check_service", map[string]any{"query": "openai", "error": "429", "code": "insufficient_quota"}, &check)
	if check.Code == nil || *check.Code != "insufficient_quota" || check.Verdict.Action != api.ActionFixClient || check.Verdict.RetryAfterSeconds != nil {
		t.Errorf("check_service openai 429 insufficient_quota: %+v", check.Verdict)
	}
	call(t, cs, "check_service", map[string]any{"query": "anthropic", "error": "429", "code": "rate_limit_error", "retryAfter": 20}, &check)
	if r := check.Verdict.RetryAfterSeconds; check.Verdict.Action != api.ActionRetry || r == nil || *r != 20 {
		t.Errorf("check_service anthropic 429 rate_limit_error retryAfter 20: %+v", check.Verdict)
	}
	if props := schemas["check_service"]["properties"].(map[string]any); props["error"].(map[string]any)["type"] != "string" ||
		props["error"].(map[string]any)["examples"] == nil {
		t.Errorf("check_service error schema: %v", props["error"])
	}
	if req, _ := json.Marshal(schemas["check_service"]["required"]); string(req) != `["query"]` {
		t.Errorf("check_service required: %s", req)
	}
	// A model: the verdict is the model's, with the failover to where it is up.
	text = call(t, cs, "check_service", map[string]any{"query": "claude-sonnet-4.5", "error": "529"}, &check)
	if check.Model == nil || check.Verdict.Action != api.ActionFailover || len(check.Verdict.Alternatives) == 0 ||
		check.Verdict.Alternatives[0].Slug != "aws-bedrock" {
		t.Errorf("check_service claude-sonnet-4.5 529: %+v", check.Verdict)
	}
	if !strings.Contains(text, "Claude Sonnet 4.5 at Anthropic: partial_outage, 60.0% over 5m per OpenRouter") {
		t.Errorf("check_service model summary: %s", text)
	}
	text = call(t, cs, "check_service", map[string]any{"query": "bedrock", "model": "claude-sonnet-4.5"}, &check)
	if check.Model == nil || check.Service.Slug != "aws-bedrock" || check.Verdict.Action != api.ActionProceed ||
		check.Model.Agreement == nil || check.Model.Agreement.Verdict != api.AgreementAgreed {
		t.Errorf("check_service bedrock model claude-sonnet-4.5: %+v %+v", check.Service, check.Verdict)
	}
	// Which witnesses stand behind the status, and Vercel's keyless time
	// to first token.
	if !strings.Contains(text, "Witnesses (2, agreed): OpenRouter and Vercel AI Gateway agree: operational.") ||
		!strings.Contains(text, "Claude Sonnet 4.5 at bedrock: operational, 99.8% over 15m per Vercel AI Gateway, first token in 675 ms (p50, 1h).") {
		t.Errorf("check_service bedrock model summary: %s", text)
	}
	var plan mcpserver.FallbackResult
	text = call(t, cs, "plan_fallback", map[string]any{"model": "anthropic/claude-sonnet-4.5"}, &plan)
	if len(plan.Targets) == 0 || plan.Targets[0].Provider != "Amazon Bedrock" || plan.Targets[0].Agreement == nil ||
		!strings.Contains(text, "Amazon Bedrock (aws-bedrock): operational") || !strings.Contains(text, "Witnesses (2, agreed)") {
		t.Errorf("plan_fallback: %+v\n%s", plan.Targets, text)
	}
	text = call(t, cs, "check_service", map[string]any{"query": "chatgtp"}, &check)
	if check.Tracked || check.Verdict.Level != "untracked" || len(check.Verdict.Suggestions) == 0 {
		t.Errorf("check_service untracked: %+v", check)
	}
	if !strings.Contains(text, "Did you mean "+check.Verdict.Suggestions[0]) || strings.Contains(text, "Did you mean:") {
		t.Errorf("check_service untracked summary: %s", text)
	}

	// The schema rejects a severity outside the enum before the API is asked.
	assertToolError(t, cs, "list_incidents", map[string]any{"severity": "bogus"}, "severity", "bogus")
	// The API's 400s come back as tool errors carrying the problem's detail.
	assertToolError(t, cs, "list_incidents", map[string]any{"since": "never"}, `since "never" is not an RFC 3339 date-time`)
	assertToolError(t, cs, "list_incidents", map[string]any{"service": "nope"}, `service "nope" is not a tracked slug`)
	// limit's bounds are in the schema, so they are checked before the API is asked.
	assertToolError(t, cs, "list_incidents", map[string]any{"limit": 0}, "limit", "minimum")
	assertToolError(t, cs, "list_incidents", map[string]any{"limit": 1001}, "limit", "maximum")
	assertToolError(t, cs, "list_incidents", map[string]any{"limit": "5"}, "limit")
	assertToolError(t, cs, "list_incidents", map[string]any{"bogus": 1}, "bogus")
	assertToolError(t, cs, "get_service", map[string]any{"slug": "nope"}, `"nope" is not a tracked service`)
	assertToolError(t, cs, "get_service", map[string]any{}, "slug")
	assertToolError(t, cs, "check_service", map[string]any{"query": ""}, "query")
	// A bad error comes back with the API's explanation.
	assertToolError(t, cs, "check_service", map[string]any{"query": "openai", "error": "teapot"}, "error must be the HTTP status", "timeout")
	// A number that is no whole number, or out of range, is still refused.
	assertToolError(t, cs, "check_service", map[string]any{"query": "openai", "error": 529.5}, "error")
	assertToolError(t, cs, "check_service", map[string]any{"query": "openai", "error": 99}, "error must be the HTTP status")
	assertToolError(t, cs, "check_service", map[string]any{"query": "openai", "error": true}, "error")
}

// TestUnreachableAPI: a dead remote instance is a tool error the model can
// read, not a protocol failure.
func TestUnreachableAPI(t *testing.T) {
	t.Parallel()
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	cs := connect(t, mcpserver.New(mcpserver.API{BaseURL: dead.URL, Client: dead.Client()}, "test"))
	assertToolError(t, cs, "get_status", nil, "aistatus API unreachable")
}

// TestStreamableHTTP drives /mcp of the thin server's public handler over
// real loopback HTTP with the SDK's streamable client.
func TestStreamableHTTP(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(newServer(t, 0).Handler())
	t.Cleanup(ts.Close)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: ts.Client()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if v := cs.InitializeResult().ServerInfo; v.Name != "aistatus" || v.Version != "test" {
		t.Errorf("server info: %+v", v)
	}
	var status mcpserver.StatusResult
	call(t, cs, "get_status", nil, &status)
	if len(status.Services) != catalogSize(t) || status.License != api.License {
		t.Errorf("get_status over HTTP: %d services, license %q", len(status.Services), status.License)
	}
	var check mcpserver.CheckResult
	call(t, cs, "check_service", map[string]any{"query": "https://api.openai.com/v1/chat/completions"}, &check)
	if check.Service == nil || check.Service.Slug != "openai" || check.Verdict.Level != "degraded" {
		t.Errorf("check_service over HTTP: %+v", check)
	}

	// /mcp keeps the API's method rules for everything but MCP's own methods.
	for method, want := range map[string]int{http.MethodPut: http.StatusMethodNotAllowed, http.MethodOptions: http.StatusNoContent} {
		req, _ := http.NewRequest(method, ts.URL+"/mcp", nil)
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want || resp.Header.Get("Allow") != "GET, POST, DELETE, OPTIONS" {
			t.Errorf("%s /mcp: %d, Allow %q", method, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
	// GET is let through to the SDK, which has no stream to offer a stateless client.
	resp, err := ts.Client().Get(ts.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("GET /mcp: %d, Cache-Control %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
}

// TestStreamableHTTPRateLimited: /mcp sits behind the same per-client limit
// as the API, one token per message that reads data (initialize, ping and
// notifications are free: serve's TestMCPStatelessCost).
func TestStreamableHTTPRateLimited(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(newServer(t, 2).Handler())
	t.Cleanup(ts.Close)
	const list = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for i, want := range []int{http.StatusOK, http.StatusOK, http.StatusTooManyRequests} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(list))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if resp.StatusCode != want || h.Get("RateLimit-Policy") == "" || h.Get("License") != api.License {
			t.Errorf("request %d: %d (want %d), RateLimit-Policy %q, License %q", i+1, resp.StatusCode, want, h.Get("RateLimit-Policy"), h.Get("License"))
		}
		// Not the API's shared-cache policy: an MCP answer is for one client.
		if cc := h.Get("Cache-Control"); !strings.HasPrefix(cc, "no-") {
			t.Errorf("request %d: Cache-Control %q", i+1, cc)
		}
		if want == http.StatusTooManyRequests && h.Get("Retry-After") == "" {
			t.Errorf("429 without Retry-After")
		}
	}
}

// catalogSize is the number of services the default catalog tracks.
func catalogSize(t *testing.T) int {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	return len(cat.Services)
}
