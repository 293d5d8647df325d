package models

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

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/models/modelstest"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// The model rules of AssembleModels, one cycle's reads at a time, and the
// bounded reads of ObserveGateways against a loopback gateway.

var asmNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

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
	data, err := os.ReadFile(filepath.Join("..", "build", "feed", "testdata", name))
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
	obs := map[string][]api.Component{
		// Anthropic's page is calm: the model's own figures must not borrow it.
		"anthropic": nil,
		"cohere": {{Name: "Playground", Status: api.PartialOutage}, {Name: "Command-A-03-2025", Status: api.Degraded},
			{Name: "command-a EU", Status: api.MajorOutage}},
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
	doc := modelstest.SplitWith(t, filepath.Join("..", modelstest.SplitFixture), 5, func(i int, ep map[string]any) {
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
	AssembleModels(h, modelCatalog("https://openrouter.example", true), map[string][]api.Component{},
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
	calm := map[string][]api.Component{"anthropic": nil, "cohere": nil}

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
// MaxGatewayEntries, regions cleaned.
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
	if len(m.Providers) != MaxGatewayEntries {
		t.Fatalf("%d providers carried forward, want %d", len(m.Providers), MaxGatewayEntries)
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
	body, err := os.ReadFile(filepath.Join("..", "build", "feed", "testdata", "openrouter-split.json"))
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

func TestObserveGatewaysBounded(t *testing.T) {
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
			reads := ObserveGateways(context.Background(), Options{Catalog: cat, Client: srv.Client(), Timeout: 5 * time.Second}, cat.Models.Pinned, nil)
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

// TestTrackedEndpoints: of a gateway's document, only tracked providers
// count, one per provider and region, the first listed unless a later one
// has the figure it lacks; more pairs than MaxGatewayEntries fail the read
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
				return ep("Google", fmt.Sprintf("google-vertex/r%d", i/2%MaxGatewayEntries), new(99.0))
			}),
			want: func() []kept {
				var out []kept
				for i := range MaxGatewayEntries {
					out = append(out, kept{"Google", fmt.Sprintf("google-vertex/r%d", i), new(99.0)})
				}
				return out
			}()},
		{name: "one pair more than the cap fails the read",
			eps:  repeat(MaxGatewayEntries+1, func(i int) feed.GatewayEndpoint { return ep("Google", fmt.Sprintf("google-vertex/r%d", i), new(99.0)) }),
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

func TestObserveGatewaysTimeout(t *testing.T) {
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
	reads := ObserveGateways(context.Background(), Options{Catalog: cat, Client: srv.Client(), Timeout: 50 * time.Millisecond}, cat.Models.Pinned, nil)
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

// TestModelDocuments makes the documents from an assembled history, as
// published: the list in catalog order, each model's own document with
// the incidents that name it.
func TestModelDocuments(t *testing.T) {
	t.Parallel()
	cat := modelCatalog("https://openrouter.example", true)
	h := history.New()
	AssembleModels(h, cat, map[string][]api.Component{}, map[string]map[string]GatewayRead{catalog.GatewayOpenRouter: {
		sonnet: {Endpoints: endpoints(t, "openrouter-split.json", sonnet)}}}, asmNow, zerolog.Nop())
	end := asmNow.Add(-time.Hour)
	h.Incidents = []api.Incident{
		{ID: "anthropic-a", Service: "anthropic", Headline: "Elevated errors on Claude Sonnet 4.5", Severity: api.Major, StartedAt: asmNow.Add(-time.Hour)},
		{ID: "anthropic-b", Service: "anthropic", Headline: "Elevated errors for multiple models", Severity: api.Major, StartedAt: asmNow.Add(-2 * time.Hour), EndedAt: &end},
		{ID: "cohere-c", Service: "cohere", Headline: "Claude Sonnet 4.5 mentioned on another service", Severity: api.Minor, StartedAt: asmNow.Add(-3 * time.Hour)},
	}
	published := func(v, into any) {
		t.Helper()
		data, err := json.Marshal(v)
		if err == nil {
			err = json.Unmarshal(data, into)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	doc := Doc(cat, h, asmNow)
	var list api.ModelsDoc
	published(doc, &list)
	if len(list.Models) != 2 || list.Models[0].ID != sonnet || list.Models[0].Incidents != nil || list.Rules.DegradedBelow != 95 || list.Rules.MajorBelow != 50 {
		t.Errorf("models.json = %+v", list)
	}
	var one api.ModelDoc
	published(Document(cat, doc.Models[0], NewHeadlines(h.Incidents), asmNow), &one)
	if len(one.Incidents) != 1 || one.Incidents[0].ID != "anthropic-a" || len(one.Providers) != 4 || one.License != api.License {
		t.Errorf("%s = %+v, want the one incident that names it", snapshot.ModelFile(sonnet), one)
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
	ObserveGateways(context.Background(), Options{Catalog: cat, Client: srv.Client(), Timeout: time.Second}, cat.Models.Pinned, nil)
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
	body, err := os.ReadFile(filepath.Join("..", "build", "feed", "testdata", "real", "incidentio-cohere-20260723.json"))
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
	obs := map[string][]api.Component{"cohere": res.Components}
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

// TestAssembleModelChanges runs cycles in which the vendor's page moves a
// watched model's component, for a model of a tracked maker and for an
// open-weight one: each move of the model's status is one
// model.status.changed naming the model (and its maker's service, none for
// the open-weight one), and its return from the outage a model.recovered;
// the first cycle, the models' first word, is none.
func TestAssembleModelChanges(t *testing.T) {
	t.Parallel()
	cat := modelCatalog("https://openrouter.example", false)
	cat.Services = append(cat.Services, catalog.Service{Slug: "groq", Name: "Groq", StatusPage: "https://groqstatus.com"})
	const llama = "meta-llama/llama-3.3-70b-instruct"
	cat.Models.Pinned = append(cat.Models.Pinned, catalog.Model{ID: llama, Name: "Llama 3.3 70B Instruct", Author: "meta-llama",
		Components: []catalog.ModelComponent{{Service: "groq", Name: "llama-3.3-70b-versatile"}}})
	page := func(command, llama api.Status) map[string][]api.Component {
		return map[string][]api.Component{
			"cohere": {{Name: "command-a-03-2025", Status: command}},
			"groq":   {{Name: "llama-3.3-70b-versatile", Status: llama}},
		}
	}
	h := history.New()
	h.StartChangeLog(asmNow)
	for i, obs := range []map[string][]api.Component{
		page(api.Operational, api.Operational),
		page(api.Operational, api.Operational),
		page(api.MajorOutage, api.Operational),
		page(api.MajorOutage, api.Degraded),
		page(api.Operational, api.Degraded),
	} {
		AssembleModels(h, cat, obs, nil, asmNow.Add(time.Duration(i)*time.Minute), zerolog.Nop())
	}
	type entry struct {
		typ            api.ChangeType
		service, model string
		old, new       api.Status
		minute         int
	}
	want := []entry{
		{api.ChangeModelStatus, "cohere", "cohere/command-a", api.Operational, api.MajorOutage, 2},
		{api.ChangeModelStatus, "", llama, api.Operational, api.Degraded, 3},
		{api.ChangeModelStatus, "cohere", "cohere/command-a", api.MajorOutage, api.Operational, 4},
		{api.ChangeModelRecovered, "cohere", "cohere/command-a", api.MajorOutage, api.Operational, 4},
	}
	var got []entry
	for _, c := range h.Changes {
		if c.Surface != "" {
			t.Errorf("change %+v names a surface", c)
		}
		if c.Model == nil {
			t.Fatalf("change %+v names no model", c)
		}
		got = append(got, entry{c.Type, c.Service, c.Model.ID, c.OldStatus, c.NewStatus, int(c.Time.Sub(asmNow) / time.Minute)})
	}
	if !slices.Equal(got, want) {
		t.Errorf("change log:\n got %v\nwant %v", got, want)
	}
	if len(h.Changes) > 1 && h.Changes[1].Subject() != "model:"+llama {
		t.Errorf("the open-weight model's subject is %q", h.Changes[1].Subject())
	}
}

// TestUnwritableModelLeftOut: no single model can fail a build. One
// whose document no JSON can hold (a time in the year 10000) is left out
// of the cycle's models, named in the model list's health, and the
// documents are written without it.
func TestUnwritableModelLeftOut(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	bad, good := cat.Models.Pinned[0].ID, cat.Models.Pinned[1].ID
	year10000 := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	h := history.New()
	h.Models = &history.ModelHistory{At: now, Models: []api.ModelDoc{
		{ID: bad, Status: api.Operational, FirstSeen: &year10000, Providers: []api.ModelProvider{}},
		{ID: good, Status: api.Operational, FirstSeen: &now, Providers: []api.ModelProvider{}},
	}, Sources: []api.ModelSourceHealth{{ID: "openrouter-models", Kind: api.ModelSourceList, State: api.FeedOK}}}
	var logged bytes.Buffer
	leaveOutUnwritable(h.Models, zerolog.New(&logged))
	doc := Doc(cat, h, now)
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatalf("one model failed models.json: %v", err)
	}
	if !strings.Contains(logged.String(), bad) {
		t.Errorf("the log %q does not name %s", logged.String(), bad)
	}
	written := map[string]bool{}
	for _, m := range doc.Models {
		// The documents written, as build.RenderTo writes them.
		if _, err := json.Marshal(Document(cat, m, nil, now)); err != nil {
			t.Errorf("%s: %v", snapshot.ModelFile(m.ID), err)
		}
		written[m.ID] = true
	}
	if written[bad] || !written[good] {
		t.Errorf("%s written: %v, %s written: %v; want only the second", snapshot.ModelFile(bad), written[bad], snapshot.ModelFile(good), written[good])
	}
	var models api.ModelsDoc
	if err := json.Unmarshal(data, &models); err != nil {
		t.Fatal(err)
	}
	if src := models.Sources[0]; len(src.LeftOut) != 1 || src.LeftOut[0] != bad {
		t.Errorf("the list's health %+v does not name %s", src, bad)
	}
}

// TestDocumentMergesItsServices: a model's document takes the incidents
// naming it of every service it is watched at, merged back into the
// published order (newest first) across those services, none of another
// service, and at most maxModelIncidents, the newest.
func TestDocumentMergesItsServices(t *testing.T) {
	t.Parallel()
	var incidents []api.Incident
	var want []string
	for i := range 3 * maxModelIncidents {
		service := []string{"anthropic", "aws-bedrock", "openai"}[i%3]
		inc := api.Incident{ID: fmt.Sprintf("%s-%03d", service, i), Service: service,
			Headline: "Elevated errors on Claude Foo 9", StartedAt: asmNow.Add(-time.Duration(i) * time.Minute)}
		if i%5 == 4 {
			inc.Headline = "Elevated errors on another model"
		}
		incidents = append(incidents, inc)
		if service != "openai" && i%5 != 4 && len(want) < maxModelIncidents {
			want = append(want, inc.ID)
		}
	}
	m := api.ModelDoc{ID: "anthropic/claude-foo-9", Name: "Claude Foo 9", Author: "anthropic", Service: "anthropic",
		Providers: []api.ModelProvider{{Service: "aws-bedrock", Provider: "Amazon Bedrock"}}}
	doc := Document(catalog.Catalog{}, m, NewHeadlines(incidents), asmNow)
	var got []string
	for _, inc := range doc.Incidents {
		got = append(got, inc.ID)
	}
	if !slices.Equal(got, want) {
		t.Errorf("incidents\n%q\nwant\n%q", got, want)
	}
}

// TestObserveGatewaysTwoGateways: with two gateways on, each is asked for
// every model by its own reader, and the reads of one never touch the
// other's. Run with -race: the loop starting the second gateway's reads
// once wrote the map the first one's were writing into, a race the
// detector sees when the first reads end before the loop goes on, as
// reads cut short by a cycle's end do (the cancelled context, many models).
func TestObserveGatewaysTwoGateways(t *testing.T) {
	t.Parallel()
	srv, hits := gateway(t, 0)
	cat := modelCatalog(srv.URL, true)
	cat.Models.Gateways = append(cat.Models.Gateways, catalog.Gateway{ID: catalog.GatewayVercel, Name: "Vercel AI Gateway", Enabled: true,
		URL: srv.URL + "/v1/models/{model}/endpoints", Attribution: "Vercel AI Gateway (vercel.com)", Providers: map[string]string{"anthropic": "anthropic"}})
	opts := Options{Catalog: cat, Client: srv.Client(), Timeout: 5 * time.Second}
	reads := ObserveGateways(context.Background(), opts, cat.Models.Pinned, nil)
	for _, md := range cat.Models.Pinned {
		if r := reads[catalog.GatewayOpenRouter][md.ID]; r.Err != nil || len(r.Endpoints) != 4 {
			t.Errorf("OpenRouter, %s: %+v, want the 4 endpoints of tracked providers", md.ID, r)
		}
		// The fake answers in OpenRouter's shape: Vercel's reader refuses it.
		if r, ok := reads[catalog.GatewayVercel][md.ID]; !ok || r.Err == nil {
			t.Errorf("Vercel, %s: %+v (read: %v), want a refusal by Vercel's reader", md.ID, r, ok)
		}
		if n := hits()["/v1/models/"+md.ID+"/endpoints"]; n != 1 {
			t.Errorf("Vercel asked %d times for %s, want once", n, md.ID)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	many := make([]catalog.Model, 500)
	for i := range many {
		many[i] = catalog.Model{ID: fmt.Sprintf("anthropic/model-%d", i), Name: "Model", Author: "anthropic", Service: "anthropic"}
	}
	reads = ObserveGateways(ctx, opts, many, nil)
	for _, g := range []string{catalog.GatewayOpenRouter, catalog.GatewayVercel} {
		if len(reads[g]) != len(many) {
			t.Errorf("%s: %d reads of %d models", g, len(reads[g]), len(many))
		}
		for id, r := range reads[g] {
			if r.Err == nil {
				t.Errorf("%s, %s: read though the cycle had ended", g, id)
				break
			}
		}
	}
}
