package models

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
)

// TestGateways goes over the table of gateways and the list that must
// stay literal beside it, catalog.Gateways (which catalog cannot take from
// here), in the table's order: every gateway a catalog may name has its
// row, every row is a gateway a catalog may name, and every row has a
// name, both readers and both fakes. Each reader reads its fake back, and
// fails, never reading a document, on a server error and an empty body.
// The default catalog's gateways each have their row, a list's reader
// included: a gateway the cycle could not read fails here, not silently.
func TestGateways(t *testing.T) {
	t.Parallel()
	rows := Gateways()
	var ids []string
	names := map[string]string{}
	for _, g := range rows {
		ids = append(ids, g.ID)
		if g.Name == "" {
			t.Errorf("%s: no name", g.ID)
		} else if other, dup := names[g.Name]; dup {
			t.Errorf("%s and %s are both named %q", other, g.ID, g.Name)
		}
		names[g.Name] = g.ID
		if got, ok := LookupGateway(g.ID); !ok || got.ID != g.ID {
			t.Errorf("LookupGateway(%q) = %+v, %v", g.ID, got, ok)
		}
	}
	if !slices.Equal(ids, catalog.Gateways) {
		t.Errorf("Gateways() = %v, catalog.Gateways = %v: the same gateways in the same order", ids, catalog.Gateways)
	}
	if _, ok := LookupGateway("carrier-pigeon"); ok {
		t.Error("LookupGateway found a gateway that is not in the table")
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range cat.Models.Gateways {
		row, ok := LookupGateway(g.ID)
		switch {
		case !ok:
			t.Errorf("the catalog's gateway %s has no row: it would never be read", g.ID)
		case g.ListURL != "" && row.ReadList == nil:
			t.Errorf("the catalog's gateway %s has a list but its row no reader of it", g.ID)
		}
	}
	for _, g := range rows {
		t.Run(g.ID, func(t *testing.T) {
			t.Parallel()
			if g.ReadList == nil || g.ReadEndpoints == nil || g.FakeList == nil || g.FakeEndpoints == nil || g.StatusWindow == "" {
				t.Fatalf("a reader or a fake is missing: %+v", g)
			}
			checkFakeEndpoints(t, g)
			checkFakeList(t, g)
			checkFailures(t, g)
		})
	}
}

// serveBody serves body as JSON with status code on a loopback server.
func serveBody(t *testing.T, code int, body []byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// checkFakeEndpoints reads g's fake document of a model back: one endpoint
// per provider, fully up.
func checkFakeEndpoints(t *testing.T, g Gateway) {
	t.Helper()
	const id = "anthropic/claude-sonnet-4.5"
	providers := []string{"Anthropic", "Amazon Bedrock", "Google"}
	srv := serveBody(t, http.StatusOK, g.FakeEndpoints(id, providers))
	eps, err := g.ReadEndpoints(context.Background(), srv.Client(), srv.URL+"/"+id, id)
	if err != nil {
		t.Fatalf("the fake document of %s: %v", id, err)
	}
	var got []string
	for _, ep := range eps {
		got = append(got, ep.Provider)
		if up := ep.Uptime[g.StatusWindow]; up == nil || *up != 100 || ep.Status != 0 {
			t.Errorf("%s reads %+v, want fully up", ep.Provider, ep)
		}
	}
	if !slices.Equal(got, providers) {
		t.Errorf("the fake document of %s names %v, want %v", id, got, providers)
	}
	if _, err := g.ReadEndpoints(context.Background(), srv.Client(), srv.URL+"/other", "openai/gpt-5"); err == nil {
		t.Error("a model's document read as another model's")
	}
}

// checkFakeList reads g's fake list back: every model, with its name,
// creation time and expiration date.
func checkFakeList(t *testing.T, g Gateway) {
	t.Helper()
	created := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	want := []feed.ListedModel{
		{ID: "anthropic/claude-sonnet-4.5", Name: "Anthropic: Claude Sonnet 4.5", Created: created},
		{ID: "openai/o4-mini", Name: "OpenAI: o4 Mini", Created: created.Add(time.Hour)},
	}
	if g.ListsDates {
		want[1].Expires = "2026-12-01"
	}
	srv := serveBody(t, http.StatusOK, g.FakeList(want))
	list, err := g.ReadList(context.Background(), srv.Client(), srv.URL, feed.Validators{})
	if err != nil {
		t.Fatalf("the fake list: %v", err)
	}
	if len(list.Models) != len(want) {
		t.Fatalf("the fake list reads %d models, want %d", len(list.Models), len(want))
	}
	for i, m := range list.Models {
		if w := want[i]; m.ID != w.ID || m.Name != w.Name || !m.Created.Equal(w.Created) || m.Expires != w.Expires {
			t.Errorf("model %d reads %+v, want %+v", i, m, w)
		}
	}
}

// checkFailures serves replies no reader may take for a document: each
// fails with its kind.
func checkFailures(t *testing.T, g Gateway) {
	t.Helper()
	const id = "anthropic/claude-sonnet-4.5"
	for _, tc := range []struct {
		name string
		code int
		body []byte
		want []api.FailureKind
	}{
		{"HTTP 500", http.StatusInternalServerError, g.FakeEndpoints(id, []string{"Anthropic"}), []api.FailureKind{api.FailureHTTP}},
		{"empty body", http.StatusOK, nil, []api.FailureKind{api.FailureSchema, api.FailureEmpty}},
	} {
		srv := serveBody(t, tc.code, tc.body)
		if _, err := g.ReadEndpoints(context.Background(), srv.Client(), srv.URL, id); !slices.Contains(tc.want, feed.Kind(err)) {
			t.Errorf("endpoints, %s: %v (%q), want one of %q", tc.name, err, feed.Kind(err), tc.want)
		}
		if tc.code != http.StatusOK {
			srv = serveBody(t, tc.code, g.FakeList([]feed.ListedModel{{ID: id, Created: time.Now()}}))
		}
		if _, err := g.ReadList(context.Background(), srv.Client(), srv.URL, feed.Validators{}); !slices.Contains(tc.want, feed.Kind(err)) {
			t.Errorf("list, %s: %v (%q), want one of %q", tc.name, err, feed.Kind(err), tc.want)
		}
	}
}

// TestOneModelAcrossGateways holds the identity rule (catalog.Gateway's
// Makers) to the real lists: OpenRouter's captured list and the model ids
// Vercel's AI SDK lists for its gateway (build/feed/testdata/real). Of the
// ids both carry, most are spelt alike; the rule joins those whose maker
// Vercel spells its own way (meta, zai, and xAI's "spacexai" since its
// rename), each kept under OpenRouter's id and asked for at Vercel by
// Vercel's; a model both list under two model names (Mistral Medium 3.5 is
// "mistral-medium-3-5" at OpenRouter) stays two models, never guessed one.
func TestOneModelAcrossGateways(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	openrouter, _ := cat.Models.Gateway(catalog.GatewayOpenRouter)
	vercel, _ := cat.Models.Gateway(catalog.GatewayVercel)
	data, err := os.ReadFile(filepath.Join("..", "build", "feed", "testdata", "real", "openrouter-models-20260522.json"))
	if err != nil {
		t.Fatal(err)
	}
	orListed, err := feed.ParseOpenRouterModels(data)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "build", "feed", "testdata", "real", "vercel-model-ids-20260821.ts"))
	if err != nil {
		t.Fatal(err)
	}
	var vListed []feed.ListedModel
	for _, m := range regexp.MustCompile(`'([a-z0-9._-]+/[a-z0-9._-]+)'`).FindAllStringSubmatch(string(src), -1) {
		vListed = append(vListed, feed.ListedModel{ID: m[1], Name: m[1]})
	}
	if len(vListed) < 200 {
		t.Fatalf("%d ids read from Vercel's list, want its 236", len(vListed))
	}
	atOpenRouter := map[string]bool{}
	for _, m := range keptModels(cat, openrouter, orListed) {
		atOpenRouter[m.ID] = true
	}
	ownID := map[string]string{} // catalog id → Vercel's
	var both, joined []string
	for _, m := range keptModels(cat, vercel, vListed) {
		if !atOpenRouter[m.ID] {
			continue
		}
		both = append(both, m.ID)
		if m.GatewayID != "" {
			joined = append(joined, m.ID)
			ownID[m.ID] = m.GatewayID
		}
	}
	wantJoined := []string{"meta-llama/llama-4-maverick", "meta-llama/llama-4-scout", "x-ai/grok-4.20-multi-agent", "x-ai/grok-4.3", "z-ai/glm-4.7"}
	if !slices.Equal(joined, wantJoined) {
		t.Errorf("joined by the rule: %v, want %v", joined, wantJoined)
	}
	for id, own := range map[string]string{"x-ai/grok-4.3": "spacexai/grok-4.3", "x-ai/grok-4.20-multi-agent": "spacexai/grok-4.20-multi-agent"} {
		if ownID[id] != own {
			t.Errorf("%s is asked for at Vercel as %q, want %q", id, ownID[id], own)
		}
	}
	for vid, want := range map[string]string{
		"meta/llama-4-scout": "meta-llama/llama-4-scout", "zai/glm-4.7": "z-ai/glm-4.7", "xai/grok-4": "x-ai/grok-4",
		"mistral/mistral-medium-3.5": "mistralai/mistral-medium-3.5", "anthropic/claude-sonnet-4.5": "anthropic/claude-sonnet-4.5",
	} {
		if got := vercel.CatalogID(vid); got != want {
			t.Errorf("CatalogID(%q) = %q, want %q", vid, got, want)
		}
		if got := openrouter.CatalogID(want); got != want {
			t.Errorf("OpenRouter's CatalogID(%q) = %q, want it unchanged", want, got)
		}
	}
	if got := vercel.GatewayID("x-ai/grok-4.3"); got != "spacexai/grok-4.3" {
		t.Errorf("GatewayID without a list = %q, want the spelling that sorts first, spacexai", got)
	}
	if atOpenRouter["mistralai/mistral-medium-3.5"] || slices.Contains(both, "mistralai/mistral-medium-3-5") {
		t.Errorf("Mistral Medium 3.5, spelt two ways, was made one model")
	}
	// 29 ids kept (of tracked makers, or pinned) are spelt alike at both
	// (Claude, GPT, Gemini, DeepSeek, Command A, Sonar); with the five
	// joined, 34 models are read at both gateways.
	if len(both) != 34 {
		t.Errorf("%d models listed at both gateways, want 34: %v", len(both), both)
	}
}

// TestServedAt: a gateway whose good list does not carry a model is not
// asked for it (a 404 would fail its health every cycle); one that carries
// it is asked by the id it lists; without a list to go by, every model is
// asked for.
func TestServedAt(t *testing.T) {
	t.Parallel()
	g := catalog.Gateway{ID: "vercel", ListURL: "https://gw.example/models", Makers: map[string]string{"xai": "x-ai", "spacexai": "x-ai"}}
	read := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	list := &history.ModelList{Reads: history.Reads{ReadAt: read, CheckedAt: read},
		Models: []history.ListedModel{{ID: "x-ai/grok-4.3", GatewayID: "xai/grok-4.3"}, {ID: "openai/gpt-5"}}}
	for _, tc := range []struct {
		name   string
		g      catalog.Gateway
		list   *history.ModelList
		id     string
		wantID string
		want   bool
	}{
		{"listed, own spelling", g, list, "x-ai/grok-4.3", "xai/grok-4.3", true},
		{"listed alike", g, list, "openai/gpt-5", "openai/gpt-5", true},
		{"not listed", g, list, "anthropic/claude-sonnet-4.5", "", false},
		{"no list read yet", g, &history.ModelList{}, "x-ai/grok-4.3", "spacexai/grok-4.3", true},
		{"no list at all", catalog.Gateway{ID: "vercel"}, nil, "anthropic/claude-sonnet-4.5", "anthropic/claude-sonnet-4.5", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			id, ok := servedAt(tc.g, tc.list, tc.id)
			if id != tc.wantID || ok != tc.want {
				t.Errorf("servedAt(%q) = %q, %v, want %q, %v", tc.id, id, ok, tc.wantID, tc.want)
			}
		})
	}
}

// TestVercelFiguresThroughAssembly: a Vercel read gives its entries their
// window (15m), their 1h uptime, their time to first token, throughput
// and regions; a failed read next cycle leaves the entries unknown, with
// none of last cycle's figures.
func TestVercelFiguresThroughAssembly(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	g, _ := cat.Models.Gateway(catalog.GatewayVercel)
	md, _ := cat.Models.Lookup("anthropic/claude-sonnet-4.5")
	up, hour, p50, p95, t50, t95 := 99.86, 99.92, 675.0, 2716.95, 36.0, 67.7
	read := GatewayRead{Endpoints: []feed.GatewayEndpoint{{Provider: "bedrock", Tag: "bedrock",
		Uptime:       map[string]*float64{"15m": &up, "1h": &hour, "1d": &up},
		LatencyP50Ms: &p50, LatencyP95Ms: &p95, ThroughputP50: &t50, ThroughputP95: &t95,
		Regions: []feed.GatewayRegion{{Scope: feed.RegionZone, Geo: "us"}, {Scope: feed.RegionSpecific, Geo: "eu", ProviderRegion: "eu-west-1"}}}}}
	got := gatewayProviders(g, md, read, api.ModelDoc{})
	if len(got) != 1 {
		t.Fatalf("entries %+v, want Bedrock's", got)
	}
	p := got[0]
	if p.Service != "aws-bedrock" || p.Status != api.Operational || *p.Uptime != up || p.Source.Window != "15m" ||
		p.Uptimes == nil || *p.Uptimes.Last1h != hour || p.Uptimes.Last30m != nil ||
		p.Latency == nil || p.Latency.P50 != p50 || p.Latency.P95 != p95 || p.Latency.Window != "1h" ||
		p.Throughput == nil || p.Throughput.P50 != t50 || !slices.Equal(p.InferenceRegions, []string{"us", "eu/eu-west-1"}) {
		t.Errorf("Vercel's Bedrock entry: %+v", p)
	}
	failed := gatewayProviders(g, md, GatewayRead{Err: &feed.Error{Kind: api.FailureHTTP, Err: http.ErrHandlerTimeout}},
		api.ModelDoc{Providers: got})
	if len(failed) != 1 || failed[0].Status != api.Unknown || failed[0].Latency != nil || failed[0].Throughput != nil ||
		failed[0].InferenceRegions != nil || failed[0].Uptime != nil || failed[0].Source.Error == "" {
		t.Errorf("after a failed read: %+v, want unknown with none of last cycle's figures", failed)
	}
}
