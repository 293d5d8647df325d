package build

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/models/modelstest"
	"github.com/aistatus/aistatus/snapshot"
)

// vercelCapture is a real Vercel endpoints document from
// build/feed/testdata/real, with data.id set to id and its endpoints kept
// to those keep accepts (which may edit them).
func vercelCapture(t *testing.T, name, id string, keep func(ep map[string]any) bool) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("feed", "testdata", "real", name))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	d := doc["data"].(map[string]any)
	d["id"] = id
	var kept []any
	for _, ep := range d["endpoints"].([]any) {
		if keep(ep.(map[string]any)) {
			kept = append(kept, ep)
		}
	}
	d["endpoints"] = kept
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestBuildTwoWitnesses runs whole cycles against both gateways on
// loopback: OpenRouter sees Claude Sonnet 4.5 failing on Amazon Bedrock
// (40 % over 5 minutes) while Vercel's requests to Bedrock succeed (its
// captured endpoint: 99.86 % over 15 minutes, a time to first token of
// 675 ms p50). The model reads operational at Bedrock, as OpenRouter's
// trouble, both figures shown, in models.json, the model's document and
// /check?model=; Vercel's latency is published, with no key anyone holds;
// each gateway and list has its own health. Once Vercel sees the failure
// too, a second witness agrees: it is Bedrock's.
func TestBuildTwoWitnesses(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, scheduleCatalog(t, "anthropic", "aws-bedrock", "google-gemini"))
	h.world.SetModel(sonnet, modelstest.SplitWith(t, filepath.Join("..", modelstest.SplitFixture), 2, func(i int, ep map[string]any) {
		ep["uptime_last_5m"] = []float64{99.9, 40}[i] // Anthropic up, Bedrock failing
	}))
	bedrockOnly := func(ep map[string]any) bool { return ep["provider_name"] == "bedrock" }
	h.world.SetGatewayModel(catalog.GatewayVercel, sonnet, vercelCapture(t, "vercel-endpoints-deepseek-v3.2-20260709.json", sonnet, bedrockOnly))
	// Vercel's captured list, its first entry standing for Sonnet: a list
	// lacking most pinned models is Vercel's catalogue, and is taken.
	list, err := os.ReadFile(filepath.Join("feed", "testdata", "real", "vercel-models-deepseek-20260709.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(list, &doc); err != nil {
		t.Fatal(err)
	}
	doc["data"].([]any)[0].(map[string]any)["id"] = sonnet
	data, _ := json.Marshal(doc)
	h.world.SetGatewayModelList(catalog.GatewayVercel, string(data))
	h.cycle()

	var v builtView
	h.read(snapshot.FileStatus, &v.status)
	h.read(snapshot.FileModels, &v.models)
	m, _ := v.Model(sonnet)
	var atOpenRouter, atVercel *api.ModelProvider
	for i, p := range m.Providers {
		if p.Service != "aws-bedrock" {
			continue
		}
		switch p.Source.ID {
		case catalog.GatewayOpenRouter:
			atOpenRouter = &m.Providers[i]
		case catalog.GatewayVercel:
			atVercel = &m.Providers[i]
		}
	}
	if atOpenRouter == nil || atVercel == nil {
		t.Fatalf("Bedrock's entries %+v: want one from each gateway", m.Providers)
	}
	if atOpenRouter.Status != api.MajorOutage || *atOpenRouter.Uptime != 40 || atOpenRouter.Source.Window != "5m" {
		t.Errorf("OpenRouter's Bedrock entry: %+v, want its 40 %% over 5m, a major outage", atOpenRouter)
	}
	if atVercel.Status != api.Operational || *atVercel.Uptime != 99.8554 || atVercel.Source.Window != "15m" ||
		atVercel.Provider != "bedrock" || atVercel.Source.Attribution == atOpenRouter.Source.Attribution {
		t.Errorf("Vercel's Bedrock entry: %+v, want its captured 99.8554 %% over 15m, with its own attribution", atVercel)
	}
	// The keyless time to first token: no completion is configured.
	if l, tp := atVercel.Latency, atVercel.Throughput; l == nil || l.P50 != 675 || l.P95 != 2716.95 || l.Window != "1h" ||
		tp == nil || tp.P50 != 36 || atVercel.Uptimes == nil || atVercel.Uptimes.Last1h == nil || *atVercel.Uptimes.Last1h != 99.9222 {
		t.Errorf("Vercel's figures: latency %+v, throughput %+v, uptimes %+v", l, tp, atVercel.Uptimes)
	}
	agreement := func(m api.ModelDoc) api.ModelAgreement {
		for _, a := range m.Agreement {
			if a.Service == "aws-bedrock" {
				return a
			}
		}
		t.Fatalf("no agreement at Bedrock in %+v", m.Agreement)
		return api.ModelAgreement{}
	}
	a := agreement(m)
	var counted []string
	for _, w := range a.Witnesses {
		if w.Counted {
			counted = append(counted, w.Source)
		}
	}
	if a.Status != api.Operational || a.Verdict != api.AgreementGatewayTrouble || !slices.Equal(a.Dissent, []string{catalog.GatewayOpenRouter}) ||
		!slices.Equal(counted, []string{catalog.GatewayOpenRouter, catalog.GatewayVercel}) {
		t.Errorf("agreement at Bedrock: %+v, want operational, OpenRouter's trouble, both gateways counted", a)
	}
	var one api.ModelDoc
	h.read(snapshot.ModelFile(sonnet), &one)
	if b := agreement(one); b.Verdict != a.Verdict || len(b.Witnesses) != len(a.Witnesses) {
		t.Errorf("the model's document says %+v, models.json %+v", b, a)
	}
	checker := check.New(h.world.Catalog, nil, h.clock.Now, check.FromServer)
	got, err := checker.Check(v, check.Request{Query: "bedrock", Model: "claude-sonnet-4.5"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Model == nil || got.Model.Status != api.Operational || got.Model.Agreement == nil ||
		got.Model.Agreement.Verdict != api.AgreementGatewayTrouble || len(got.Model.Agreement.Witnesses) != len(a.Witnesses) ||
		!strings.Contains(got.Verdict.Detail, "OpenRouter's routing, not the provider's") {
		t.Errorf("/check?q=bedrock&model=claude-sonnet-4.5: %+v, detail %q, want operational with the agreement, said", got.Model, got.Verdict.Detail)
	}
	// Asked at Anthropic while it fails, Bedrock is where the model works.
	got, err = checker.Check(v, check.Request{Query: "anthropic", Model: "claude-sonnet-4.5", Error: "529"})
	if err != nil {
		t.Fatal(err)
	}
	if alts := got.Verdict.Alternatives; len(alts) == 0 || alts[0].Slug != "aws-bedrock" || alts[0].Status != api.Operational {
		t.Errorf("/check at Anthropic: alternatives %+v, want Bedrock, up as the witnesses agree", alts)
	}
	for _, id := range []string{catalog.GatewayVercel, catalog.GatewayVercel + "-models"} {
		src := h.modelSource(id)
		if src.State != api.FeedOK || src.Reads != 1 {
			t.Errorf("%s's health: %+v, want one good read", id, src)
		}
	}

	// Vercel's requests to Bedrock fail too: a second witness agrees.
	h.world.SetGatewayModel(catalog.GatewayVercel, sonnet, vercelCapture(t, "vercel-endpoints-deepseek-v3.2-20260709.json", sonnet,
		func(ep map[string]any) bool {
			ep["uptime_last_15m"] = 30
			return bedrockOnly(ep)
		}))
	h.clock.Advance(15 * time.Minute)
	h.cycle()
	v.models = api.ModelsDoc{}
	h.read(snapshot.FileModels, &v.models)
	m, _ = v.Model(sonnet)
	if a := agreement(m); a.Status != api.MajorOutage || a.Verdict != api.AgreementAgreed || len(a.Dissent) != 0 {
		t.Errorf("both gateways failing: %+v, want an agreed major outage", a)
	}
	got, err = checker.Check(v, check.Request{Query: "bedrock", Model: "claude-sonnet-4.5"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Model == nil || got.Model.Status != api.MajorOutage {
		t.Errorf("/check with both failing: %+v, want a major outage at Bedrock", got.Model)
	}
}
