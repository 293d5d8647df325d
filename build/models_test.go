package build

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// The model rules of AssembleModels, one cycle's reads at a time, and the
// bounded reads of ObserveModels against a loopback gateway.

const sonnet = "anthropic/claude-sonnet-4.5"

// modelCatalog watches two models: Sonnet, at two services and through the
// gateway, and a Cohere model that only Cohere's page reports on.
func modelCatalog(gatewayURL string, enabled bool) catalog.Catalog {
	return catalog.Catalog{
		Services: []catalog.Service{
			{Slug: "anthropic", Name: "Anthropic", StatusPage: "https://status.claude.com"},
			{Slug: "aws-bedrock", Name: "Amazon Bedrock", StatusPage: "https://health.aws.amazon.com"},
			{Slug: "google-gemini", Name: "Google Gemini API", StatusPage: "https://status.cloud.google.com"},
			{Slug: "cohere", Name: "Cohere", StatusPage: "https://status.cohere.com"},
		},
		Models: catalog.ModelCatalog{
			Gateways: []catalog.Gateway{{ID: catalog.GatewayOpenRouter, Name: "OpenRouter", Enabled: enabled,
				URL: gatewayURL + "/api/v1/models/{model}/endpoints", Attribution: "OpenRouter (openrouter.ai)",
				ModelPage: "https://openrouter.ai/{model}",
				Providers: map[string]string{"Anthropic": "anthropic", "Amazon Bedrock": "aws-bedrock", "Google": "google-gemini"}}},
			Pinned: []catalog.Model{
				{ID: sonnet, Name: "Claude Sonnet 4.5", Author: "anthropic", Service: "anthropic", Aliases: []string{"sonnet 4.5"}},
				{ID: "cohere/command-a", Name: "Command A", Author: "cohere", Service: "cohere",
					Components: []catalog.ModelComponent{{Service: "cohere", Name: "command-a-03-2025"}, {Service: "cohere", Name: "command-a EU", Region: "eu"}}},
			},
		},
	}
}

// endpoints reads a gateway fixture of build/feed.
func endpoints(t *testing.T, name, model string) []feed.GatewayEndpoint {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("feed", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	eps, err := feed.ParseOpenRouter(data, model)
	if err != nil {
		t.Fatal(err)
	}
	return eps
}

func modelOf(t *testing.T, h *history.History, id string) api.ModelDoc {
	t.Helper()
	if h.Models == nil {
		t.Fatal("no models in the history")
	}
	for _, m := range h.Models.Models {
		if m.ID == id {
			return m
		}
	}
	t.Fatalf("no model %s", id)
	return api.ModelDoc{}
}

func TestModelStatusThresholds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		uptime *float64
		want   api.Status
	}{
		{new(100.0), api.Operational},
		{new(95.0), api.Operational},
		{new(94.99), api.Degraded},
		{new(80.0), api.Degraded},
		{new(79.99), api.PartialOutage},
		{new(60.0), api.PartialOutage},
		{new(50.0), api.PartialOutage},
		{new(49.99), api.MajorOutage},
		{new(0.0), api.MajorOutage},
		{nil, api.Unknown},
	} {
		if got := history.ModelStatusOf(tc.uptime); got != tc.want {
			t.Errorf("ModelStatusOf(%v) = %s, want %s", figure(tc.uptime), got, tc.want)
		}
	}
}

func figure(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func TestAssembleModelsPerProvider(t *testing.T) {
	t.Parallel()
	cat := modelCatalog("https://openrouter.example", true)
	h := history.New()
	reads := map[string]map[string]GatewayRead{catalog.GatewayOpenRouter: {
		sonnet:             {Endpoints: endpoints(t, "openrouter-split.json", sonnet)},
		"cohere/command-a": {Err: errors.New("GET …: HTTP 404 Not Found")},
	}}
	obs := map[string]Observation{
		// Anthropic's page is calm: the model's own figures must not borrow it.
		"anthropic": {Feed: feedOK(api.Operational)},
		"cohere": {Feed: feedOK(api.PartialOutage), Components: []api.Component{
			{Name: "Playground", Status: api.PartialOutage}, {Name: "Command-A-03-2025", Status: api.Degraded},
			{Name: "command-a EU", Status: api.MajorOutage}}},
	}
	AssembleModels(h, cat, obs, reads, asmNow, zerolog.Nop())

	m := modelOf(t, h, sonnet)
	type row struct {
		service, region string
		status          api.Status
		uptime          float64
	}
	want := []row{
		{"anthropic", "", api.PartialOutage, 60},
		{"aws-bedrock", "", api.Operational, 99.9},
		{"google-gemini", "us-east5", api.Operational, 95},
		{"google-gemini", "europe", api.Degraded, 94.99},
	}
	if len(m.Providers) != len(want) {
		t.Fatalf("providers = %+v, want %d (the untracked host left out)", m.Providers, len(want))
	}
	for i, w := range want {
		p := m.Providers[i]
		region := ""
		if p.Region != nil {
			region = *p.Region
		}
		if p.Service != w.service || region != w.region || p.Status != w.status || p.Uptime == nil || *p.Uptime != w.uptime {
			t.Errorf("provider %d = %s %q %s %v, want %+v", i, p.Service, region, p.Status, figure(p.Uptime), w)
		}
		if s := p.Source; s.ID != "openrouter" || s.Window != "5m" || s.Attribution == "" || !strings.Contains(s.Basis, "not your key") ||
			s.URL != "https://openrouter.ai/"+sonnet {
			t.Errorf("provider %d source = %+v: it must name the gateway, the window, the basis and the attribution", i, s)
		}
		if p.Uptimes == nil || p.Uptimes.Last30m == nil || p.Uptimes.Last1d == nil {
			t.Errorf("provider %d lacks the other windows: %v", i, p.Uptimes)
		}
	}
	if m.Status != api.Operational || m.StatusFrom == nil || m.StatusFrom.Service != "aws-bedrock" || m.StatusFrom.Source.ID != "openrouter" {
		t.Errorf("status = %s from %+v, want operational, from Bedrock per OpenRouter", m.Status, m.StatusFrom)
	}
	for _, part := range []string{"partial_outage at Anthropic: 60.0 % over 5m per OpenRouter", "operational at Amazon Bedrock: 99.9 %"} {
		if !strings.Contains(m.Summary, part) {
			t.Errorf("summary %q lacks %q", m.Summary, part)
		}
	}

	c := modelOf(t, h, "cohere/command-a")
	if len(c.Providers) != 2 || c.Providers[0].Status != api.Degraded || c.Providers[0].Source.Kind != api.ModelSourceComponent ||
		c.Providers[0].Source.Component != "command-a-03-2025" || c.Providers[0].Region != nil || c.Status != api.Degraded {
		t.Errorf("cohere model = %+v, want the page's degraded component (matched case-insensitively), not the page's partial outage", c)
	}
	if eu := c.Providers[1]; eu.Region == nil || *eu.Region != "eu" || eu.Status != api.MajorOutage {
		t.Errorf("cohere EU = %+v, want the regional component's major outage, region eu", eu)
	}

	src, _ := h.Models.Source(catalog.GatewayOpenRouter)
	if src.State != api.FeedError || src.Reads != 2 || src.Failed != 1 || src.ConsecutiveFailures != 1 ||
		len(src.FailedModels) != 1 || src.FailedModels[0] != "cohere/command-a" ||
		src.FailingSince == nil || !strings.Contains(src.Error, "404") || src.Failure != api.FailureNetwork && src.Failure == "" {
		t.Errorf("source health = %+v, want one failed read of two", src)
	}
}

// TestAssembleModelsEndpointStatus: OpenRouter's status of an endpoint
// that is not 0 caps it at degraded, whatever its uptime; a worse figure
// stays worse, and no figure stays unknown. A tag's variant is not a
// region: Google's "us-east5/flex" endpoint is its us-east5 one.
func TestAssembleModelsEndpointStatus(t *testing.T) {
	t.Parallel()
	doc := splitWith(t, 5, func(i int, ep map[string]any) {
		switch i {
		case 0: // Anthropic, 60 %
			ep["status"] = -1
		case 1: // Amazon Bedrock, 99.9 %
			ep["status"] = -2
		case 2: // Google us-east5, 95 %
			ep["tag"] = "google-vertex/us-east5/flex"
		case 3: // Google europe, 94.99 %: no figure
			ep["status"], ep["uptime_last_5m"] = -3, nil
		}
	})
	eps, err := feed.ParseOpenRouter([]byte(doc), sonnet)
	if err != nil {
		t.Fatal(err)
	}
	h := history.New()
	AssembleModels(h, modelCatalog("https://openrouter.example", true), map[string]Observation{},
		map[string]map[string]GatewayRead{catalog.GatewayOpenRouter: {sonnet: {Endpoints: eps}}}, asmNow, zerolog.Nop())
	m := modelOf(t, h, sonnet)
	type row struct {
		service, region string
		status          api.Status
	}
	want := []row{
		{"anthropic", "", api.PartialOutage},
		{"aws-bedrock", "", api.Degraded},
		{"google-gemini", "us-east5", api.Operational},
		{"google-gemini", "europe", api.Unknown},
	}
	if len(m.Providers) != len(want) {
		t.Fatalf("providers = %+v, want %d", m.Providers, len(want))
	}
	for i, w := range want {
		p := m.Providers[i]
		region := ""
		if p.Region != nil {
			region = *p.Region
		}
		if (row{p.Service, region, p.Status}) != w {
			t.Errorf("provider %d = %s %q %s (uptime %v), want %+v", i, p.Service, region, p.Status, figure(p.Uptime), w)
		}
	}
	if m.Status != api.Operational || m.StatusFrom == nil || m.StatusFrom.Service != "google-gemini" {
		t.Errorf("status = %s from %+v, want operational from Google us-east5, the one endpoint OpenRouter does not flag", m.Status, m.StatusFrom)
	}
}

// TestRegionOf: the region is what a tag says after the provider, less its
// variants and quantizations (the known ones and the endpoint's own).
func TestRegionOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tag, quantization, want string // want "" for none
	}{
		{"google-vertex/us-east5", "", "us-east5"},
		{"google-vertex/europe", "unknown", "europe"},
		{"amazon-bedrock", "", ""},
		{"fireworks/fast", "unknown", ""},
		{"morph/fast", "fp4", ""},
		{"groq/turbo", "", ""},
		{"google-vertex/global/flex", "", "global"},
		{"deepinfra/fp8", "fp8", ""},
		{"deepinfra/FP8", "", ""},
		{"moonshotai/mxfp4", "mxfp4", ""},
		{"sail-research/nvfp4", "", "nvfp4"}, // a quantization the list lacks and the endpoint does not name
		{"google-vertex/", "", ""},
		{"a/b/c", "", "b/c"},
		// A tag whose control characters the reader replaced with spaces.
		{"anthropic/ ]0;x ", "", "]0;x"},
		{"google-vertex/ us-east5 / ", "", "us-east5"},
	} {
		r := regionOf(tc.tag, tc.quantization)
		got := ""
		if r != nil {
			got = *r
		}
		if got != tc.want {
			t.Errorf("regionOf(%q, %q) = %q, want %q", tc.tag, tc.quantization, got, tc.want)
		}
	}
}

func TestAssembleModelsUnknown(t *testing.T) {
	t.Parallel()
	cat := modelCatalog("https://openrouter.example", true)
	calm := map[string]Observation{"anthropic": {Feed: feedOK(api.Operational)}, "cohere": {Feed: feedOK(api.Operational)}}

	t.Run("nobody reports: unknown, not the service's status", func(t *testing.T) {
		h := history.New()
		AssembleModels(h, cat, calm, map[string]map[string]GatewayRead{}, asmNow, zerolog.Nop())
		if m := modelOf(t, h, sonnet); m.Status != api.Unknown || len(m.Providers) != 0 || m.StatusFrom != nil {
			t.Errorf("sonnet = %+v, want unknown with no providers while Anthropic's page is operational", m)
		}
		c := modelOf(t, h, "cohere/command-a")
		if c.Status != api.Unknown || c.Providers[0].Source.Error == "" {
			t.Errorf("cohere = %+v, want unknown: the page no longer lists the component", c)
		}
	})

	t.Run("a gateway that stops answering keeps its providers as unknown", func(t *testing.T) {
		h := history.New()
		ok := map[string]map[string]GatewayRead{catalog.GatewayOpenRouter: {sonnet: {Endpoints: endpoints(t, "openrouter-split.json", sonnet)}}}
		AssembleModels(h, cat, calm, ok, asmNow, zerolog.Nop())
		limited := map[string]map[string]GatewayRead{catalog.GatewayOpenRouter: {sonnet: {Err: errors.New("GET …: HTTP 429 Too Many Requests")}}}
		var logs bytes.Buffer
		for i := range 13 {
			AssembleModels(h, cat, calm, limited, asmNow.Add(time.Duration(i+1)*5*time.Minute), zerolog.New(&logs))
		}
		m := modelOf(t, h, sonnet)
		if m.Status != api.Unknown || len(m.Providers) != 4 {
			t.Fatalf("sonnet = %+v, want its 4 providers, unknown", m)
		}
		for _, p := range m.Providers {
			if p.Status != api.Unknown || p.Uptime != nil || !strings.Contains(p.Source.Error, "429") {
				t.Errorf("provider %+v, want unknown, no figure, the error named", p)
			}
		}
		src, _ := h.Models.Source(catalog.GatewayOpenRouter)
		if src.ConsecutiveFailures != 13 || src.LastOKAt == nil || !src.LastOKAt.Equal(asmNow) || !src.FailingSince.Equal(asmNow.Add(5*time.Minute)) {
			t.Errorf("health = %+v, want 13 failures since the first and the last good read kept", src)
		}
		if !strings.Contains(logs.String(), "failing for over an hour") {
			t.Errorf("no alarm after an hour of failures: %s", logs.String())
		}
	})

	t.Run("a disabled gateway is not a failure and reports nothing", func(t *testing.T) {
		h := history.New()
		AssembleModels(h, modelCatalog("https://openrouter.example", false), calm, nil, asmNow, zerolog.Nop())
		src, _ := h.Models.Source(catalog.GatewayOpenRouter)
		if src.State != api.ModelSourceDisabled || src.Enabled {
			t.Errorf("health = %+v, want disabled", src)
		}
		if m := modelOf(t, h, sonnet); m.Status != api.Unknown {
			t.Errorf("sonnet = %s, want unknown", m.Status)
		}
	})
}

// TestAssembleModelsPoisonedHistory: a history written before the
// gateway's reads were bounded and cleaned may hold thousands of a model's
// entries, raw escape sequences in their regions. While the gateway's
// reads of the model fail (a hostile gateway still sending its flood
// does), what is carried forward as unknown is bounded as a good read is:
// tracked providers, one entry per provider and region, at most
// maxGatewayEntries, regions cleaned.
func TestAssembleModelsPoisonedHistory(t *testing.T) {
	t.Parallel()
	cat := modelCatalog("https://openrouter.example", true)
	src := api.ModelSource{ID: catalog.GatewayOpenRouter, Kind: api.ModelSourceGateway, Name: "OpenRouter"}
	var poisoned []api.ModelProvider
	for i := range 3000 {
		entry := api.ModelProvider{Service: "anthropic", Provider: "Anthropic", Status: api.Operational, Uptime: new(99.0), Source: src}
		switch i % 3 {
		case 1:
			entry.Service, entry.Provider, entry.Region = "google-gemini", "Google", new(fmt.Sprintf("\x1b]0;r%d\x07", i%100))
		case 2:
			entry.Provider = "Untracked\x1b[2J"
		}
		poisoned = append(poisoned, entry)
	}
	h := history.New()
	h.Models = &history.ModelHistory{At: asmNow.Add(-5 * time.Minute), Models: []api.ModelDoc{{ID: sonnet, Providers: poisoned}}}
	failed := map[string]map[string]GatewayRead{catalog.GatewayOpenRouter: {sonnet: {Err: errors.New("GET …: data.endpoints lists 58000 endpoints")}}}
	AssembleModels(h, cat, nil, failed, asmNow, zerolog.Nop())
	m := modelOf(t, h, sonnet)
	if len(m.Providers) != maxGatewayEntries {
		t.Fatalf("%d providers carried forward, want %d", len(m.Providers), maxGatewayEntries)
	}
	pairs := map[string]bool{}
	for _, p := range m.Providers {
		region := ""
		if p.Region != nil {
			region = *p.Region
		}
		if _, tracked := cat.Models.Gateways[0].Providers[p.Provider]; !tracked || pairs[p.Provider+"/"+region] ||
			strings.ContainsAny(region, "\x1b\x07") || p.Status != api.Unknown || p.Uptime != nil {
			t.Fatalf("carried forward %s %q %s %v", p.Provider, region, p.Status, figure(p.Uptime))
		}
		pairs[p.Provider+"/"+region] = true
	}
}

// gateway is a loopback gateway that counts its requests per path and
// answers every model with the split fixture's shape, rewritten to its id.
func gateway(t *testing.T, code int) (*httptest.Server, func() map[string]int) {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("feed", "testdata", "openrouter-split.json"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		if code != 0 {
			w.WriteHeader(code)
			return
		}
		id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/api/v1/models/"), "/endpoints")
		w.Header().Set("Content-Type", "application/json")
		w.Write(bytes.Replace(body, []byte(`"id": "`+sonnet+`"`), []byte(`"id": "`+id+`"`), 1))
	}))
	t.Cleanup(srv.Close)
	return srv, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		return hits
	}
}

func TestObserveModelsBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		enabled bool
		code    int
		want    int // requests per model
	}{
		{"one request per model", true, 0, 1},
		{"rate-limited: still one, no retry", true, http.StatusTooManyRequests, 1},
		{"disabled: none", false, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, hits := gateway(t, tc.code)
			cat := modelCatalog(srv.URL, tc.enabled)
			reads := ObserveModels(context.Background(), Options{Catalog: cat, Client: srv.Client(), Timeout: 5 * time.Second}, cat.Models.Pinned)
			for _, md := range cat.Models.Pinned {
				if n := hits()["/api/v1/models/"+md.ID+"/endpoints"]; n != tc.want {
					t.Errorf("%s: %d requests, want %d", md.ID, n, tc.want)
				}
				r, read := reads[catalog.GatewayOpenRouter][md.ID]
				switch {
				case !tc.enabled && read:
					t.Errorf("%s read from a disabled gateway", md.ID)
				case tc.enabled && tc.code != 0 && (r.Err == nil || feed.Kind(r.Err) != api.FailureHTTP):
					t.Errorf("%s: err = %v, want an http_status failure", md.ID, r.Err)
				case tc.enabled && tc.code == 0 && (r.Err != nil || len(r.Endpoints) != 4):
					t.Errorf("%s: %+v, want the 4 endpoints of tracked providers", md.ID, r)
				}
			}
		})
	}
}

// splitWith is the split fixture's document with its endpoints replaced
// by n: the i-th is the fixture's (i mod 5)-th (Anthropic, Bedrock, Google
// in us-east5, Google in europe, an untracked host) passed through edit.
func splitWith(t *testing.T, n int, edit func(i int, ep map[string]any)) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("feed", "testdata", "openrouter-split.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	base := doc.Data["endpoints"].([]any)
	eps := make([]map[string]any, n)
	for i := range eps {
		one, _ := json.Marshal(base[i%len(base)])
		if err := json.Unmarshal(one, &eps[i]); err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			edit(i, eps[i])
		}
	}
	doc.Data["endpoints"] = eps
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestTrackedEndpoints: of a gateway's document, only tracked providers
// count, one per provider and region, the first listed unless a later one
// has the figure it lacks; more pairs than maxGatewayEntries fail the read
// as a schema failure instead of being cut.
func TestTrackedEndpoints(t *testing.T) {
	t.Parallel()
	g := modelCatalog("https://openrouter.example", true).Models.Gateways[0]
	ep := func(provider, tag string, up5 *float64) feed.GatewayEndpoint {
		return feed.GatewayEndpoint{Provider: provider, Tag: tag, Uptime: map[string]*float64{"5m": up5, "30m": up5, "1d": up5}}
	}
	repeat := func(n int, e func(i int) feed.GatewayEndpoint) []feed.GatewayEndpoint {
		out := make([]feed.GatewayEndpoint, n)
		for i := range out {
			out[i] = e(i)
		}
		return out
	}
	type kept struct {
		provider, tag string
		up5           *float64
	}
	for _, tc := range []struct {
		name string
		eps  []feed.GatewayEndpoint
		want []kept
		fail bool
	}{
		{name: "untracked providers are left out",
			eps:  []feed.GatewayEndpoint{ep("Untracked Host", "untracked-host", new(99.0)), ep("Anthropic", "anthropic", new(60.0)), ep("anthropic", "anthropic", new(1.0))},
			want: []kept{{"Anthropic", "anthropic", new(60.0)}}},
		{name: "one provider 300 times is one entry, the first",
			eps:  repeat(300, func(i int) feed.GatewayEndpoint { return ep("Amazon Bedrock", "amazon-bedrock", new(float64(i%100))) }),
			want: []kept{{"Amazon Bedrock", "amazon-bedrock", new(0.0)}}},
		{name: "a provider's quantizations are one entry",
			eps:  []feed.GatewayEndpoint{ep("Anthropic", "anthropic/fp8", new(90.0)), ep("Anthropic", "anthropic/bf16", new(99.0)), ep("Anthropic", "anthropic", new(10.0))},
			want: []kept{{"Anthropic", "anthropic/fp8", new(90.0)}}},
		{name: "a later one with the figure the first lacks wins",
			eps:  []feed.GatewayEndpoint{ep("Anthropic", "anthropic", nil), ep("Anthropic", "anthropic/fp8", new(97.0)), ep("Anthropic", "anthropic/int8", new(12.0))},
			want: []kept{{"Anthropic", "anthropic/fp8", new(97.0)}}},
		{name: "a provider's variant is the provider, not a region",
			eps:  []feed.GatewayEndpoint{ep("Google", "google-vertex", new(99.0)), ep("Google", "google-vertex/fast", new(10.0)), ep("Google", "google-vertex/turbo", new(20.0))},
			want: []kept{{"Google", "google-vertex", new(99.0)}}},
		{name: "regions apart stay apart, in the document's order",
			eps: []feed.GatewayEndpoint{ep("Google", "google-vertex/us-east5", new(95.0)), ep("Google", "google-vertex/europe", new(94.0)),
				ep("Google", "google-vertex/us-east5", new(1.0)), ep("Google", "google-vertex", new(93.0))},
			want: []kept{{"Google", "google-vertex/us-east5", new(95.0)}, {"Google", "google-vertex/europe", new(94.0)}, {"Google", "google-vertex", new(93.0)}}},
		{name: "as many pairs as the cap, among duplicates and untracked hosts",
			eps: repeat(feed.MaxGatewayEndpoints, func(i int) feed.GatewayEndpoint {
				if i%2 == 1 {
					return ep(fmt.Sprintf("Host %d", i), "host", new(50.0))
				}
				return ep("Google", fmt.Sprintf("google-vertex/r%d", i/2%maxGatewayEntries), new(99.0))
			}),
			want: func() []kept {
				var out []kept
				for i := range maxGatewayEntries {
					out = append(out, kept{"Google", fmt.Sprintf("google-vertex/r%d", i), new(99.0)})
				}
				return out
			}()},
		{name: "one pair more than the cap fails the read",
			eps:  repeat(maxGatewayEntries+1, func(i int) feed.GatewayEndpoint { return ep("Google", fmt.Sprintf("google-vertex/r%d", i), new(99.0)) }),
			fail: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := trackedEndpoints(g, sonnet, tc.eps)
			if tc.fail {
				if feed.Kind(err) != api.FailureSchema || got != nil {
					t.Fatalf("%d kept, err = %v (kind %q), want a schema failure", len(got), err, feed.Kind(err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("kept %+v, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				if got[i].Provider != w.provider || got[i].Tag != w.tag || !sameFigure(got[i].Uptime["5m"], w.up5) {
					t.Errorf("kept %d = %s %s %v, want %s %s %v", i, got[i].Provider, got[i].Tag, figure(got[i].Uptime["5m"]), w.provider, w.tag, figure(w.up5))
				}
			}
		})
	}
}

func sameFigure(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// TestBuildModelsHostileGateway runs whole cycles against a gateway whose
// document of a model floods: the published model holds one entry per
// tracked provider and region, never more than maxGatewayEntries; a
// document past a cap fails that model's read as a schema failure, and the
// model's entries from the gateway read unknown, as after any broken feed.
func TestBuildModelsHostileGateway(t *testing.T) {
	t.Parallel()
	// flood is as many endpoints as a document may list: the fixture's
	// five over and over, its untracked host under a new name each time
	// and Anthropic under quantization tags every other time.
	flood := splitWith(t, feed.MaxGatewayEndpoints, func(i int, ep map[string]any) {
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
		{"5000 endpoints of the same five", splitWith(t, 5000, nil), true},
		{"a tracked provider in more regions than the cap", splitWith(t, maxGatewayEntries+1, func(i int, ep map[string]any) {
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
				if len(doc.Providers) != 4 || len(doc.Providers) > maxGatewayEntries {
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
	h.world.SetModel(sonnet, splitWith(t, 5, func(i int, ep map[string]any) {
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

func TestObserveModelsTimeout(t *testing.T) {
	t.Parallel()
	// A gateway that never answers holds the reads no longer than the
	// per-request bound.
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	cat := modelCatalog(srv.URL, true)
	reads := ObserveModels(context.Background(), Options{Catalog: cat, Client: srv.Client(), Timeout: 50 * time.Millisecond}, cat.Models.Pinned)
	for _, md := range cat.Models.Pinned {
		if r := reads[catalog.GatewayOpenRouter][md.ID]; feed.Kind(r.Err) != api.FailureTimeout {
			t.Errorf("%s: err = %v, want a timeout", md.ID, r.Err)
		}
	}
}

func TestNamesModel(t *testing.T) {
	t.Parallel()
	md := catalog.Model{ID: sonnet, Name: "Claude Sonnet 4.5", Aliases: []string{"sonnet 4.5"}}
	for headline, want := range map[string]bool{
		"Elevated errors on Claude Sonnet 4.5":         true,
		"claude-sonnet-4.5 unavailable":                true,
		"Sonnet 4.5 slow in EU":                        true,
		"Errors on Claude Sonnet 4.5.":                 true,
		"Elevated errors on Claude Sonnet 4":           false,
		"Elevated errors on Claude Sonnet 4.51":        false,
		"Elevated errors for multiple models":          false,
		"Errors on Claude Sonnet 4.5, Opus 4.1":        true,
		"Elevated errors on claude-sonnet-4.5-preview": false,
	} {
		if got := namesModel(headline, md); got != want {
			t.Errorf("namesModel(%q) = %v, want %v", headline, got, want)
		}
	}
}

// TestModelDocuments renders the documents from an assembled history: the
// list in catalog order, each model's own document with the incidents
// that name it.
func TestModelDocuments(t *testing.T) {
	t.Parallel()
	cat := modelCatalog("https://openrouter.example", true)
	h := history.New()
	AssembleModels(h, cat, map[string]Observation{}, map[string]map[string]GatewayRead{catalog.GatewayOpenRouter: {
		sonnet: {Endpoints: endpoints(t, "openrouter-split.json", sonnet)}}}, asmNow, zerolog.Nop())
	end := asmNow.Add(-time.Hour)
	h.Incidents = []api.Incident{
		{ID: "anthropic-a", Service: "anthropic", Headline: "Elevated errors on Claude Sonnet 4.5", Severity: api.Major, StartedAt: asmNow.Add(-time.Hour)},
		{ID: "anthropic-b", Service: "anthropic", Headline: "Elevated errors for multiple models", Severity: api.Major, StartedAt: asmNow.Add(-2 * time.Hour), EndedAt: &end},
		{ID: "cohere-c", Service: "cohere", Headline: "Claude Sonnet 4.5 mentioned on another service", Severity: api.Minor, StartedAt: asmNow.Add(-3 * time.Hour)},
	}
	files, err := Render(Site{BaseURL: "https://aistatus.example", StaleAfter: time.Minute}, cat, h, nil, asmNow)
	if err != nil {
		t.Fatal(err)
	}
	var list api.ModelsDoc
	if err := json.Unmarshal(files[snapshot.FileModels], &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Models) != 2 || list.Models[0].ID != sonnet || list.Models[0].Incidents != nil || list.Rules.DegradedBelow != 95 || list.Rules.MajorBelow != 50 {
		t.Errorf("models.json = %+v", list)
	}
	var one api.ModelDoc
	if err := json.Unmarshal(files[snapshot.ModelFile(sonnet)], &one); err != nil {
		t.Fatal(err)
	}
	if len(one.Incidents) != 1 || one.Incidents[0].ID != "anthropic-a" || len(one.Providers) != 4 || one.License != api.License {
		t.Errorf("%s = %+v, want the one incident that names it", snapshot.ModelFile(sonnet), one)
	}
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

// TestGatewaySendsNoCredentials: the gateway is read without a key, so no
// key can leak to it (or, from it, into a published figure).
func TestGatewaySendsNoCredentials(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		for _, h := range []string{"Authorization", "Cookie", "X-Api-Key"} {
			if r.Header.Get(h) != "" {
				seen = append(seen, h)
			}
		}
		mu.Unlock()
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	cat := modelCatalog(srv.URL, true)
	ObserveModels(context.Background(), Options{Catalog: cat, Client: srv.Client(), Timeout: time.Second}, cat.Models.Pinned)
	if len(seen) > 0 {
		t.Errorf("the gateway got credentials: %v", seen)
	}
}

// TestModelComponentsRealCapture reads Cohere's real status page (a
// capture in which the Playground is in a partial outage and every model
// component operational) with the catalog's Cohere service, and finds each
// watched Cohere model by its component: the models read operational, not
// the page's partial outage.
func TestModelComponentsRealCapture(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile(filepath.Join("feed", "testdata", "real", "incidentio-cohere-20260723.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v2/summary.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	svc, _ := cat.Lookup("cohere")
	svc.Feed.URL, svc.Feed.IncidentsURL, svc.Feed.ComponentsURL = srv.URL+"/api/v2/summary.json", "", ""
	res, _, err := feed.Read(context.Background(), feed.Adapters()[svc.Feed.Format], feed.Request{Client: srv.Client(), Service: svc, Now: asmNow})
	if err != nil {
		t.Fatal(err)
	}
	obs := map[string]Observation{"cohere": {Feed: feedOK(res.Status), Components: res.Components}}
	h := history.New()
	cat.Models.Gateways = nil // the page alone
	AssembleModels(h, cat, obs, nil, asmNow, zerolog.Nop())
	checked := 0
	for _, md := range cat.Models.Pinned {
		for _, c := range md.Components {
			if c.Service != "cohere" {
				continue
			}
			checked++
			m := modelOf(t, h, md.ID)
			if m.Status != api.Operational || m.Providers[0].Source.Component != c.Name || m.Providers[0].Source.Error != "" {
				t.Errorf("%s = %+v, want operational by its component %q", md.ID, m, c.Name)
			}
		}
	}
	if checked < 3 {
		t.Errorf("only %d Cohere models checked", checked)
	}
}

// TestAssembleModelsMeasured: where the operator measures a watched model
// with our own completions, the entry gives the measured status and the
// share that succeeded over the hour, named as ours and our key's.
func TestAssembleModelsMeasured(t *testing.T) {
	t.Parallel()
	cat := modelCatalog("https://openrouter.example", false)
	cat.Services[0].Completion = &catalog.CompletionProbe{Style: catalog.CompletionStyles[0], URL: "https://api.anthropic.example/v1/messages",
		KeyEnv: "ANTHROPIC_API_KEY", Models: []catalog.MeasuredModelRef{{ID: sonnet, Model: "claude-sonnet-4-5"}}}
	h := history.New()
	sh := h.Track("anthropic")
	for i := range 10 {
		outcome := api.OutcomeOK
		if i%2 == 1 {
			outcome = api.OutcomeOverloaded
		}
		sh.RecordCompletion(sonnet, api.CompletionSample{At: asmNow.Add(time.Duration(i-10) * time.Minute), Outcome: outcome, TTFTMs: new(300.0), TotalMs: new(900.0)})
	}
	AssembleModels(h, cat, nil, nil, asmNow, zerolog.Nop())
	m := modelOf(t, h, sonnet)
	if len(m.Providers) != 1 {
		t.Fatalf("providers = %+v, want our measurement", m.Providers)
	}
	p := m.Providers[0]
	if p.Service != "anthropic" || p.Source.Kind != api.ModelSourceMeasured || p.Source.Window != "1h" || p.Uptime == nil || *p.Uptime != 50 ||
		!strings.Contains(p.Source.Basis, "not yours") || p.Status == api.Unknown || p.Status == api.Operational {
		t.Errorf("measured entry = %+v (uptime %v), want half of our completions failing at Anthropic", p, figure(p.Uptime))
	}
}

// namesModel reports whether an incident's headline names the model: its
// name ("Claude Sonnet 4.5"), the model part of its id
// ("claude-sonnet-4.5") or an alias, as whole words, case-insensitively.
func namesModel(headline string, md catalog.Model) bool {
	return namedIn(" "+wordsOf(headline)+" ", modelWords(md))
}
