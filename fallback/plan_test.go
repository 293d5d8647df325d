package fallback

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/fallback/fallbacktest"
	"github.com/aistatus/aistatus/history"
)

// TestMain puts the tests' temporary folders in memory (buildtest.Main).
func TestMain(m *testing.M) { buildtest.Main(m) }

var genTime = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// fakeView is a snapshot's models as a test writes them.
type fakeView struct {
	models      []api.ModelDoc
	retirements map[string]api.ModelRetirement
	measured    map[string][]api.MeasuredModel
	status      map[string]api.Status
	reports     map[string]check.ReportCount
}

func (v fakeView) Model(id string) (api.ModelDoc, bool) {
	i := slices.IndexFunc(v.models, func(m api.ModelDoc) bool { return m.ID == id })
	if i < 0 {
		return api.ModelDoc{}, false
	}
	return v.models[i], true
}
func (v fakeView) WatchedModels() []api.ModelDoc { return v.models }
func (v fakeView) Retirement(id string) (api.ModelRetirement, bool) {
	r, ok := v.retirements[id]
	return r, ok
}
func (v fakeView) Measured(slug string) []api.MeasuredModel { return v.measured[slug] }
func (v fakeView) Summary(slug string) (api.ServiceSummary, bool) {
	st, ok := v.status[slug]
	return api.ServiceSummary{Slug: slug, Status: st}, ok
}
func (v fakeView) GeneratedAt() time.Time { return genTime }
func (v fakeView) Reports(slug string) (check.ReportCount, bool) {
	c, ok := v.reports[slug]
	return c, ok
}

func pct(v float64) *float64 { return &v }

// gateway is OpenRouter's entry for a provider at uptime (nil: too little
// traffic).
func gateway(slug, provider string, uptime *float64) api.ModelProvider {
	return api.ModelProvider{Service: slug, Provider: provider, Status: history.ModelStatusOf(uptime), Uptime: uptime,
		Source: api.ModelSource{ID: catalog.GatewayOpenRouter, Kind: api.ModelSourceGateway, Name: "OpenRouter", Window: history.ModelWindow,
			URL: "https://openrouter.ai/anthropic/claude-sonnet-4.5"}}
}

func modelDoc(id, name string, created time.Time, entries ...api.ModelProvider) api.ModelDoc {
	author, _, _ := strings.Cut(id, "/")
	return api.ModelDoc{ID: id, Name: name, Author: author, Created: &created, Status: history.BestModelStatus(entries, ""), Providers: entries}
}

// sonnetView is the case: Claude Sonnet 4.5 at 60 % on Anthropic
// and 99.9 % on Bedrock; its siblings Claude Opus 4.5 (the newest) up on
// Bedrock and failing at Anthropic, Claude Haiku 4.5 measured at Anthropic
// by our own completions, Claude Opus 4.1 down.
func sonnetView(anthropic, bedrock *float64) fakeView {
	sampled := genTime.Add(-2 * time.Minute)
	return fakeView{
		models: []api.ModelDoc{
			modelDoc("anthropic/claude-sonnet-4.5", "Claude Sonnet 4.5", genTime.AddDate(0, -14, 0),
				gateway("anthropic", "Anthropic", anthropic), gateway("aws-bedrock", "Amazon Bedrock", bedrock)),
			modelDoc("anthropic/claude-opus-4.5", "Claude Opus 4.5", genTime.AddDate(0, -12, 0),
				gateway("aws-bedrock", "Amazon Bedrock", pct(99.5)), gateway("anthropic", "Anthropic", pct(70))),
			modelDoc("anthropic/claude-haiku-4.5", "Claude Haiku 4.5", genTime.AddDate(0, -13, 0),
				api.ModelProvider{Service: "anthropic", Provider: "Anthropic", Status: api.Operational, Uptime: pct(100),
					Source: api.ModelSource{ID: "anthropic", Kind: api.ModelSourceMeasured, Name: "aistatus", Window: "1h"}}),
			modelDoc("anthropic/claude-opus-4.1", "Claude Opus 4.1", genTime.AddDate(0, -16, 0),
				gateway("anthropic", "Anthropic", pct(20))),
		},
		measured: map[string][]api.MeasuredModel{"anthropic": {{Model: "anthropic/claude-haiku-4.5", APIModel: "claude-haiku-4-5",
			Status: api.Operational, LastSampleAt: &sampled, Windows: api.MeasuredWindows{Hour: api.MeasuredWindow{Window: "1h", Samples: 12,
				ErrorRate: pct(0), TTFTMs: api.Percentiles{P50: pct(420)}},
				Day: api.MeasuredWindow{Window: "24h", Samples: 288, ErrorRate: pct(0.01), TTFTMs: api.Percentiles{P50: pct(450), P95: pct(3100)}}}}}},
		status: map[string]api.Status{"anthropic": api.Operational, "aws-bedrock": api.Operational, "google-gemini": api.Degraded},
	}
}

func planner(t *testing.T) *Planner {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	return New(cat)
}

// where lists a plan's targets as "model at provider (status)".
func where(plan api.FallbackPlan) []string {
	var out []string
	for _, t := range plan.Targets {
		out = append(out, t.Model+" at "+t.Provider+" ("+string(t.Status)+")")
	}
	return out
}

// TestPlanOrder: the targets follow the model's health per provider, its
// own providers before its maker's other models, which come only when up.
func TestPlanOrder(t *testing.T) {
	t.Parallel()
	p := planner(t)
	for _, tc := range []struct {
		name string
		view fakeView
		want []string
	}{
		{"Anthropic failing, Bedrock up: Bedrock first", sonnetView(pct(60), pct(99.9)), []string{
			"anthropic/claude-sonnet-4.5 at Amazon Bedrock (operational)",
			"anthropic/claude-sonnet-4.5 at Anthropic (partial_outage)",
			"anthropic/claude-sonnet-4.5 at Google Vertex (unknown)",
			"anthropic/claude-opus-4.5 at Amazon Bedrock (operational)",
			"anthropic/claude-haiku-4.5 at Anthropic (operational)",
		}},
		{"both up: the higher figure first", sonnetView(pct(99.95), pct(99.5)), []string{
			"anthropic/claude-sonnet-4.5 at Anthropic (operational)",
			"anthropic/claude-sonnet-4.5 at Amazon Bedrock (operational)",
			"anthropic/claude-sonnet-4.5 at Google Vertex (unknown)",
			"anthropic/claude-opus-4.5 at Amazon Bedrock (operational)",
			"anthropic/claude-haiku-4.5 at Anthropic (operational)",
		}},
		{"no figure at Anthropic: a known status first", sonnetView(nil, pct(90)), []string{
			"anthropic/claude-sonnet-4.5 at Amazon Bedrock (degraded)",
			"anthropic/claude-sonnet-4.5 at Anthropic (unknown)",
			"anthropic/claude-sonnet-4.5 at Google Vertex (unknown)",
			"anthropic/claude-opus-4.5 at Amazon Bedrock (operational)",
			"anthropic/claude-haiku-4.5 at Anthropic (operational)",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			plan, err := p.ForModel(tc.view, "anthropic/claude-sonnet-4.5", "model")
			if err != nil {
				t.Fatal(err)
			}
			if got := where(plan); !slices.Equal(got, tc.want) {
				t.Errorf("targets\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			for i, tgt := range plan.Targets {
				if tgt.Rank != i+1 || len(tgt.Evidence) == 0 || tgt.Sibling != (tgt.Model != "anthropic/claude-sonnet-4.5") {
					t.Errorf("target %d: %+v: want its rank, its evidence and whether it is a sibling", i, tgt)
				}
			}
		})
	}
}

// TestPlanMeasuredBreaksTies: with the same status and no gateway figure,
// our measured error rate, then the time to first token, orders the
// targets.
func TestPlanMeasuredBreaksTies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                   string
		a, b                   api.FallbackTarget
		wantAFirst             bool
		errA, errB, ttfA, ttfB *float64
	}{
		{name: "lower error rate first", errA: pct(0.2), errB: pct(0.05), wantAFirst: false},
		{name: "same error rate: faster first token", errA: pct(0.1), errB: pct(0.1), ttfA: pct(300), ttfB: pct(900), wantAFirst: true},
		{name: "a figure before none", errA: nil, errB: pct(0.5), wantAFirst: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := []api.FallbackTarget{
				{Provider: "A", Status: api.Operational, ErrorRate: tc.errA, TTFTMs: tc.ttfA},
				{Provider: "B", Status: api.Operational, ErrorRate: tc.errB, TTFTMs: tc.ttfB},
			}
			sortTargets(ts)
			if got := ts[0].Provider == "A"; got != tc.wantAFirst {
				t.Errorf("order %s, %s", ts[0].Provider, ts[1].Provider)
			}
		})
	}
}

// TestTimeouts: a target's waits follow the rule: four times our measured
// first token's p95, up to the whole second, never under the floor; a
// whole answer 60 s more; the floor without a figure. Haiku's p95 of
// 3.1 s gives 13 s in the plan and in every format.
func TestTimeouts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p95           *float64
		first, answer int
	}{
		{nil, 10000, 70000},
		{pct(800), 10000, 70000},
		{pct(2500), 10000, 70000},
		{pct(2501), 11000, 71000},
		{pct(3100), 13000, 73000},
	} {
		if got := timeoutsOf(tc.p95); got.FirstTokenMs != tc.first || got.RequestMs != tc.answer {
			t.Errorf("p95 %v: %+v, want %d and %d ms", tc.p95, *got, tc.first, tc.answer)
		}
	}
	p := planner(t)
	plan, err := p.ForModel(sonnetView(pct(60), pct(99.9)), "anthropic/claude-sonnet-4.5", "model")
	if err != nil {
		t.Fatal(err)
	}
	haiku := plan.Targets[4]
	if haiku.TTFTP95Ms == nil || *haiku.TTFTP95Ms != 3100 || haiku.Timeouts.FirstTokenMs != 13000 || haiku.Timeouts.RequestMs != 73000 {
		t.Errorf("Haiku: p95 %v, timeouts %+v", haiku.TTFTP95Ms, haiku.Timeouts)
	}
	for _, tc := range []struct{ format, want string }{
		{api.FallbackLiteLLM, "timeout: 73\n        stream_timeout: 13\n        api_key: os.environ/ANTHROPIC_API_KEY\n"},
		{api.FallbackPortkey, `"request_timeout": 13000,
      "override_params": {
        "model": "claude-haiku-4-5-20251001"`},
	} {
		body, _, err := p.Render(plan, tc.format)
		if err != nil || !strings.Contains(string(body), tc.want) {
			t.Errorf("%s: %v\n%s\nwant it to hold\n%s", tc.format, err, body, tc.want)
		}
	}
}

// TestPlanEvidence: each target carries what its sources said and when:
// the gateway's figure as of the snapshot, our completions as of the
// latest, with their error rate and time to first token.
func TestPlanEvidence(t *testing.T) {
	t.Parallel()
	plan, err := planner(t).ForModel(sonnetView(pct(60), pct(99.9)), "anthropic/claude-sonnet-4.5", "model")
	if err != nil {
		t.Fatal(err)
	}
	bedrock, haiku := plan.Targets[0], plan.Targets[4]
	if ev := bedrock.Evidence[0]; ev.Source != api.EvidenceGateway || !ev.At.Equal(genTime) || !strings.Contains(ev.Says, "99.9 %") ||
		bedrock.Uptime == nil || *bedrock.Uptime != 99.9 || bedrock.APIModel == nil || *bedrock.APIModel != "anthropic.claude-sonnet-4-5-20250929-v1:0" {
		t.Errorf("Bedrock: %+v", bedrock)
	}
	if ev := haiku.Evidence[0]; ev.Source != api.EvidenceMeasured || !ev.At.Equal(genTime.Add(-2*time.Minute)) ||
		!strings.Contains(ev.Says, "first token after 420 ms") || haiku.ErrorRate == nil || haiku.TTFTMs == nil || *haiku.TTFTMs != 420 {
		t.Errorf("Haiku, measured: %+v", haiku)
	}
	if vertex := plan.Targets[2]; vertex.Evidence[0].URL == "" || !strings.Contains(vertex.Evidence[0].Says, "claude-sonnet-4-5@20250929") {
		t.Errorf("Vertex, named by the catalog only: %+v", vertex)
	}
	if !strings.HasPrefix(plan.Summary, "Send Claude Sonnet 4.5 to Amazon Bedrock (operational, 99.9 %), then Anthropic") {
		t.Errorf("summary %q", plan.Summary)
	}
}

// TestPlanLeavesOutWhatTheCatalogCannotName: a provider the catalog does
// not name the model at (Azure, whose deployments are the customer's own
// names) stays in the plan with its figure, for OpenRouter only, and out
// of every configuration that needs the provider's id.
func TestPlanLeavesOutWhatTheCatalogCannotName(t *testing.T) {
	t.Parallel()
	p := planner(t)
	view := fakeView{models: []api.ModelDoc{modelDoc("openai/gpt-5", "GPT-5", genTime.AddDate(0, -6, 0),
		gateway("azure-openai", "Azure", pct(99.9)), gateway("openai", "OpenAI", pct(98)))}}
	plan, err := p.ForModel(view, "openai/gpt-5", "model")
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Targets) != 2 || plan.Targets[0].Provider != "Azure" || plan.Targets[0].APIModel != nil ||
		!slices.Equal(plan.Targets[0].Formats, []string{api.FallbackOpenRouter}) {
		t.Fatalf("targets %+v: want Azure first, unnamed, for OpenRouter only", plan.Targets)
	}
	body, _, err := p.Render(plan, api.FallbackOpenRouter)
	if err != nil || !strings.Contains(string(body), `"azure"`) {
		t.Errorf("openrouter: %s %v", body, err)
	}
	for _, f := range []string{api.FallbackLiteLLM, api.FallbackVercel, api.FallbackPortkey} {
		_, _, err := p.Render(plan, f)
		if bad := (*check.InputError)(nil); !errors.As(err, &bad) || bad.Param != "format" || !strings.Contains(bad.Detail, "openrouter") {
			t.Errorf("%s: %v, want a refusal of the format naming the one that can carry it", f, err)
		}
	}
}

// TestPlanRefusals: what the caller gets wrong is an InputError naming
// the parameter, never a plan of nothing.
func TestPlanRefusals(t *testing.T) {
	t.Parallel()
	p := planner(t)
	view := sonnetView(pct(60), pct(99.9))
	plan, err := p.ForModel(view, "anthropic/claude-sonnet-4.5", "model")
	if err != nil {
		t.Fatal(err)
	}
	service, err := p.ForQuery(view, "bedrock")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, param string
		run         func() error
	}{
		{"a model not watched", "model", func() error { _, err := p.ForModel(view, "anthropic/claude-sonnet-9", "model"); return err }},
		{"q naming nothing tracked", "q", func() error { _, err := p.ForQuery(view, "no such thing at all"); return err }},
		{"an unknown format", "format", func() error { _, _, err := p.Render(plan, "yaml"); return err }},
		{"a format for a service", "format", func() error { _, _, err := p.Render(service, api.FallbackLiteLLM); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.run()
			if bad := (*check.InputError)(nil); !errors.As(err, &bad) || bad.Param != tc.param || bad.Detail == "" {
				t.Errorf("%v, want an input error on %s", err, tc.param)
			}
		})
	}
}

// TestServicePlan: q naming a service plans by service status: the
// service and its curated alternatives, best first.
func TestServicePlan(t *testing.T) {
	t.Parallel()
	plan, err := planner(t).ForQuery(sonnetView(pct(60), pct(99.9)), "https://api.anthropic.com/v1/messages")
	if err != nil {
		t.Fatal(err)
	}
	if plan.Service == nil || plan.Service.Slug != "anthropic" || plan.Model != nil || len(plan.Targets) < 2 {
		t.Fatalf("plan %+v", plan)
	}
	for i := 1; i < len(plan.Targets); i++ {
		if api.CompareUsable(plan.Targets[i-1].Status, plan.Targets[i].Status) > 0 {
			t.Errorf("targets out of order: %v", where(plan))
		}
	}
	if plan, err := planner(t).ForQuery(sonnetView(pct(60), pct(99.9)), "anthropic/claude-sonnet-4.5"); err != nil || plan.Model == nil {
		t.Errorf("q naming a model's id: %+v %v", plan.Model, err)
	}
}

// keyLike matches what a credential looks like: an OpenAI, Anthropic,
// OpenRouter, Google or Portkey key, an AWS access key id, a bearer token,
// or a long run of base64 (not a URL's path).
var keyLike = regexp.MustCompile(`sk-[A-Za-z0-9_-]{8,}|sk-ant-|AKIA[0-9A-Z]{12,}|AIza[0-9A-Za-z_-]{20,}|(?i:bearer\s+\S)|[A-Za-z0-9+=_-]{40,}`)

// TestRenderGolden writes the plan in every format, compared with
// testdata/golden (go test ./fallback -update rewrites them; read the
// diff), and checks that none holds a key: LiteLLM's credentials are
// os.environ references, and nothing anywhere looks like a key.
func TestRenderGolden(t *testing.T) {
	t.Parallel()
	p := planner(t)
	plan, err := p.ForModel(sonnetView(pct(60), pct(99.9)), "anthropic/claude-sonnet-4.5", "model")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := json.MarshalIndent(plan, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	buildtest.Golden(t, "sonnet.plan.json", append(doc, '\n'))
	for _, tc := range []struct{ format, file, contentType string }{
		{api.FallbackLiteLLM, "sonnet.litellm.yaml", "application/yaml"},
		{api.FallbackOpenRouter, "sonnet.openrouter.json", "application/json"},
		{api.FallbackVercel, "sonnet.vercel.json", "application/json"},
		{api.FallbackPortkey, "sonnet.portkey.json", "application/json"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			t.Parallel()
			body, ct, err := p.Render(plan, tc.format)
			if err != nil || ct != tc.contentType {
				t.Fatalf("%s: %v", ct, err)
			}
			buildtest.Golden(t, tc.file, body)
			if m := keyLike.Find(body); m != nil {
				t.Errorf("%q looks like a key", m)
			}
		})
	}
}

// TestLiteLLMConfig parses the LiteLLM form back with a YAML parser and
// holds it to the keys LiteLLM documents for the proxy's config.yaml
// (fallbacktest.CheckLiteLLM cites them), every credential an
// os.environ/NAME reference: Bedrock first under the model's own name, and
// the fallbacks in the plan's order.
func TestLiteLLMConfig(t *testing.T) {
	t.Parallel()
	p := planner(t)
	plan, err := p.ForModel(sonnetView(pct(60), pct(99.9)), "anthropic/claude-sonnet-4.5", "model")
	if err != nil {
		t.Fatal(err)
	}
	body, _, err := p.Render(plan, api.FallbackLiteLLM)
	if err != nil {
		t.Fatal(err)
	}
	deps, fallbacks := fallbacktest.CheckLiteLLM(t, body)
	if deps[0].ModelName != "claude-sonnet-4.5" || deps[0].Params["model"] != "bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0" ||
		deps[0].Params["aws_region_name"] != "os.environ/AWS_REGION_NAME" {
		t.Errorf("first deployment %+v: want Claude Sonnet 4.5 on Bedrock, under the model's own name", deps[0])
	}
	want := []string{"claude-sonnet-4.5@anthropic", "claude-sonnet-4.5@vertex", "claude-opus-4.5@bedrock", "claude-haiku-4.5@anthropic"}
	if !slices.Equal(fallbacks, want) {
		t.Errorf("fallbacks %v, want %v", fallbacks, want)
	}
}

// TestSDKTypes compiles a program using each JSON form against the pinned
// SDKs' TypeScript types (fallbacktest.CompileSDKs: @openrouter/sdk's
// request body, the AI SDK's generateText with the AI Gateway's provider
// options, the Portkey client), in the same run as a wrong form of each,
// which the types must refuse; the Portkey form is also held to Portkey's
// documented keys. Skipped, saying so, without node or the SDKs.
func TestSDKTypes(t *testing.T) {
	t.Parallel()
	p := planner(t)
	plan, err := p.ForModel(sonnetView(pct(60), pct(99.9)), "anthropic/claude-sonnet-4.5", "model")
	if err != nil {
		t.Fatal(err)
	}
	forms := map[string][]byte{
		// Misspelled (camelCase is the SDK's own object, not the wire's),
		// a provider's display name where its slug goes, mistyped, and not
		// an object at all.
		api.FallbackOpenRouter + ".broken":      []byte(`{"models": ["anthropic/claude-sonnet-4.5"], "provider": {"order": ["amazon-bedrock"], "allowFallbacks": true}}`),
		api.FallbackOpenRouter + ".displayname": []byte(`{"models": ["anthropic/claude-sonnet-4.5"], "provider": {"order": ["Amazon Bedrock"], "allow_fallbacks": true}}`),
		api.FallbackVercel + ".broken":          []byte(`{"model": "anthropic/claude-sonnet-4.5", "providerOptions": {"gateway": {"order": "bedrock"}}}`),
		api.FallbackPortkey + ".broken":         []byte(`{"strategy": {"mode": "fallback"}, "targets": []} as unknown as number`),
	}
	for _, f := range []string{api.FallbackOpenRouter, api.FallbackVercel, api.FallbackPortkey} {
		if forms[f], _, err = p.Render(plan, f); err != nil {
			t.Fatal(err)
		}
	}
	var portkeyCfg map[string]any
	if err := json.Unmarshal(forms[api.FallbackPortkey], &portkeyCfg); err != nil {
		t.Fatal(err)
	}
	fallbacktest.CheckPortkey(t, portkeyCfg)
	complaints, err := fallbacktest.CompileSDKs(t.TempDir(), fallbacktest.SDKModules(), forms)
	if errors.Is(err, fallbacktest.ErrNoSDK) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for name := range forms {
		if broken := strings.Contains(name, "."); broken != (complaints[name] != "") {
			t.Errorf("%s: complaints %q (want some exactly for a broken form)\n%s", name, complaints[name], forms[name])
		}
	}
	if complaints[""] != "" {
		t.Errorf("tsc: %s", complaints[""])
	}
}

// TestPlanCrowdSurge: a surge of callers' reports at Anthropic is
// evidence on its target (crowdSurge, the count as "reports" evidence),
// and nothing more: the order stays what the statuses and figures make
// it, and so does every gateway's configuration written from the plan,
// byte for byte. Fewer reports than a surge mark nothing.
func TestPlanCrowdSurge(t *testing.T) {
	t.Parallel()
	baseline := 1.0
	p := planner(t)
	for _, tc := range []struct {
		name      string
		anthropic int // networks reporting errors at Anthropic
		bedrock   *float64
		wantFirst string
		wantSurge bool
	}{
		{"no reports", 0, pct(99.5), "Anthropic", false},
		{"nine networks: no surge", 9, pct(99.5), "Anthropic", false},
		{"a surge at Anthropic, statuses equal", 40, pct(99.5), "Anthropic", true},
		{"a surge at Anthropic, Bedrock worse", 40, pct(60), "Anthropic", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			quiet := sonnetView(pct(99.9), tc.bedrock) // Anthropic's figure higher
			view := sonnetView(pct(99.9), tc.bedrock)
			view.reports = map[string]check.ReportCount{"anthropic": {Window: genTime.Add(-2 * time.Minute), Count: tc.anthropic, Baseline: &baseline}}
			want, err := p.ForModel(quiet, "anthropic/claude-sonnet-4.5", "model")
			if err != nil {
				t.Fatal(err)
			}
			plan, err := p.ForModel(view, "anthropic/claude-sonnet-4.5", "model")
			if err != nil {
				t.Fatal(err)
			}
			if got := plan.Targets[0].Provider; got != tc.wantFirst {
				t.Errorf("first target %s, want %s", got, tc.wantFirst)
			}
			if got, quiet := providers(plan), providers(want); !slices.Equal(got, quiet) {
				t.Errorf("order %v, want the order without reports %v", got, quiet)
			}
			for _, format := range api.FallbackFormats {
				got, _, gerr := p.Render(plan, format)
				quiet, _, qerr := p.Render(want, format)
				if gerr != nil || qerr != nil || !bytes.Equal(got, quiet) {
					t.Errorf("%s configuration changed by the crowd (%v, %v):\n%s\nwithout reports:\n%s", format, gerr, qerr, got, quiet)
				}
			}
			i := slices.IndexFunc(plan.Targets, func(t api.FallbackTarget) bool { return t.Provider == "Anthropic" && !t.Sibling })
			target := plan.Targets[i]
			hasEvidence := slices.ContainsFunc(target.Evidence, func(e api.FallbackEvidence) bool {
				return e.Source == api.EvidenceReports && strings.Contains(e.Says, "a surge of reports, which sets no status")
			})
			if target.CrowdSurge != tc.wantSurge || hasEvidence != tc.wantSurge {
				t.Errorf("Anthropic's target: crowdSurge %v, reports evidence %v; want %v", target.CrowdSurge, hasEvidence, tc.wantSurge)
			}
			if quiet := want.Targets[slices.IndexFunc(want.Targets, func(t api.FallbackTarget) bool { return t.Provider == "Anthropic" && !t.Sibling })]; target.Status != quiet.Status {
				t.Errorf("Anthropic's status %s, want %s as without reports", target.Status, quiet.Status)
			}
		})
	}
}

// providers are a plan's targets by provider and model, in its order.
func providers(plan api.FallbackPlan) []string {
	var out []string
	for _, t := range plan.Targets {
		out = append(out, t.Provider+" "+t.Model)
	}
	return out
}

// TestOpenRouterWire sends the openrouter form through the openai SDK and
// @openrouter/sdk to a recorder on loopback (fallbacktest.CheckOpenRouterWire)
// and holds each body that arrived to OpenRouter's documented request:
// models, provider.order of OpenRouter's provider slugs (as
// @openrouter/sdk lists them), allow_fallbacks; and every slug the
// renderer knows is one of those. Skipped, saying so, without node or the
// SDKs.
func TestOpenRouterWire(t *testing.T) {
	t.Parallel()
	p := planner(t)
	plan, err := p.ForModel(sonnetView(pct(60), pct(99.9)), "anthropic/claude-sonnet-4.5", "model")
	if err != nil {
		t.Fatal(err)
	}
	form, _, err := p.Render(plan, api.FallbackOpenRouter)
	if err != nil {
		t.Fatal(err)
	}
	slugs := fallbacktest.CheckOpenRouterWire(t, form)
	for name, slug := range openRouterSlugs {
		if !slices.Contains(slugs, slug) {
			t.Errorf("%s: %q is not one of @openrouter/sdk's provider slugs", name, slug)
		}
	}
}

// vercelEntry is Vercel AI Gateway's entry for a provider, by Vercel's id
// of it, at uptime over its 15 minutes.
func vercelEntry(slug, provider string, uptime *float64) api.ModelProvider {
	return api.ModelProvider{Service: slug, Provider: provider, Status: history.ModelStatusOf(uptime), Uptime: uptime,
		Source: api.ModelSource{ID: catalog.GatewayVercel, Kind: api.ModelSourceGateway, Name: "Vercel AI Gateway", Window: "15m"}}
}

// twoGatewaysView is Claude Sonnet 4.5 as both gateways see it: OpenRouter
// at Anthropic (90 %) and Bedrock (40 %), Vercel at Bedrock
// (bedrockAtVercel) and on Vertex (99 %).
func twoGatewaysView(bedrockAtVercel float64) fakeView {
	return fakeView{models: []api.ModelDoc{modelDoc("anthropic/claude-sonnet-4.5", "Claude Sonnet 4.5", genTime.AddDate(0, -14, 0),
		gateway("anthropic", "Anthropic", pct(90)), gateway("aws-bedrock", "Amazon Bedrock", pct(40)),
		vercelEntry("aws-bedrock", "bedrock", pct(bedrockAtVercel)), vercelEntry("google-gemini", "vertexAnthropic", pct(99)))},
		status: map[string]api.Status{}}
}

// TestVercelWire: the vercel form, read by a client, goes through the AI
// SDK's generateText and @ai-sdk/gateway to a recorder standing in for
// the AI Gateway: what arrives names the model and carries the form's
// gateway options (the order by Vercel's slugs, the fallback models, the
// providers' timeouts) member for member.
func TestVercelWire(t *testing.T) {
	t.Parallel()
	p := planner(t)
	plan, err := p.ForModel(twoGatewaysView(99.8), "anthropic/claude-sonnet-4.5", "model")
	if err != nil {
		t.Fatal(err)
	}
	form, _, err := p.Render(plan, api.FallbackVercel)
	if err != nil {
		t.Fatal(err)
	}
	fallbacktest.CheckVercelWire(t, form)
}

// TestPlanTwoGateways: a provider both gateways report on is one target,
// named by each gateway its own way, ranked by what its witnesses agree
// on: Bedrock failing at OpenRouter only is OpenRouter's trouble and ranks
// as up, before Anthropic, which OpenRouter alone sees degraded. Vercel's
// configuration orders them by the slugs its provider options document
// ("vertex" for Claude on Vertex too, as the AI SDK's own examples write
// it). Once Vercel sees Bedrock failing too, it ranks last of the known.
func TestPlanTwoGateways(t *testing.T) {
	t.Parallel()
	p := planner(t)
	view := twoGatewaysView
	plan, err := p.ForModel(view(99.8), "anthropic/claude-sonnet-4.5", "model")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"anthropic/claude-sonnet-4.5 at Amazon Bedrock (operational)",
		"anthropic/claude-sonnet-4.5 at Google Vertex (operational)",
		"anthropic/claude-sonnet-4.5 at Anthropic (degraded)",
	}
	if got := where(plan); !slices.Equal(got, want) {
		t.Fatalf("targets\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	bedrock := plan.Targets[0]
	if a := bedrock.Agreement; a == nil || a.Verdict != api.AgreementGatewayTrouble || len(a.Witnesses) != 2 ||
		bedrock.GatewayProviders[catalog.GatewayOpenRouter] != "Amazon Bedrock" || bedrock.GatewayProviders[catalog.GatewayVercel] != "bedrock" {
		t.Errorf("Bedrock's target: %+v, agreement %+v: want OpenRouter's trouble, both witnesses, each gateway's name", bedrock, bedrock.Agreement)
	}
	body, _, err := p.Render(plan, api.FallbackVercel)
	if err != nil {
		t.Fatal(err)
	}
	var cfg api.VercelFallback
	if err := json.Unmarshal(body, &cfg); err != nil {
		t.Fatal(err)
	}
	if got := cfg.ProviderOptions.Gateway.Order; !slices.Equal(got, []string{"bedrock", "vertex", "anthropic"}) {
		t.Errorf("Vercel's order %v, want its documented slugs", got)
	}

	plan, err = p.ForModel(view(30), "anthropic/claude-sonnet-4.5", "model")
	if err != nil {
		t.Fatal(err)
	}
	if got := where(plan); got[len(got)-1] != "anthropic/claude-sonnet-4.5 at Amazon Bedrock (major_outage)" {
		t.Errorf("both gateways failing at Bedrock: %v, want Bedrock last, in a major outage", got)
	}
}
