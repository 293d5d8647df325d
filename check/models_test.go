package check

import (
	"errors"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
)

// modelView is the test view with models.json's models.
type modelView struct {
	*fakeView
	models map[string]api.ModelDoc
}

func (v modelView) Model(id string) (api.ModelDoc, bool) {
	m, ok := v.models[id]
	return m, ok
}

func pct(v float64) *float64 { return &v }

// gatewayEntry is OpenRouter's figure for a model at a service.
func gatewayEntry(service, provider string, uptime *float64) api.ModelProvider {
	return api.ModelProvider{Service: service, Provider: provider, Status: history.ModelStatusOf(uptime), Uptime: uptime,
		Source: api.ModelSource{ID: "openrouter", Kind: api.ModelSourceGateway, Name: "OpenRouter", Window: history.ModelWindow,
			Basis: "OpenRouter's uptime of its own requests", Attribution: "OpenRouter (openrouter.ai)"}}
}

// withSonnet is the test view in which Claude Sonnet 4.5 sits at 60 % on
// Anthropic and 99.9 % on Bedrock, while Anthropic's own page is calm.
func withSonnet(v *fakeView, anthropic, bedrock *float64) modelView {
	return modelView{fakeView: v, models: map[string]api.ModelDoc{
		"anthropic/claude-sonnet-4.5": {ID: "anthropic/claude-sonnet-4.5", Name: "Claude Sonnet 4.5", Author: "anthropic",
			Providers: []api.ModelProvider{
				gatewayEntry("anthropic", "Anthropic", anthropic),
				gatewayEntry("aws-bedrock", "Amazon Bedrock", bedrock),
				gatewayEntry("google-gemini", "Google", pct(97)),
			}},
	}}
}

// TestCheckModelFailover is the example: an error 529 while the
// model sits at 60 % on Anthropic and 99.9 % on Bedrock is advice to fail
// over to Bedrock, with that evidence.
func TestCheckModelFailover(t *testing.T) {
	t.Parallel()
	e, v, _ := newTestEngine(t)
	view := withSonnet(v, pct(60), pct(99.9))
	for _, req := range []Request{
		{Query: "claude-sonnet-4.5", Error: "529"},
		{Query: "anthropic/claude-sonnet-4.5", Error: "529"},
		{Query: "Sonnet 4.5", Error: "529"},
		{Query: "anthropic", Model: "claude-sonnet-4.5", Error: "529"},
		{Query: "api.anthropic.com", Model: "Claude Sonnet 4.5", Error: "529", Code: "overloaded_error"},
	} {
		t.Run(req.Query+"+"+req.Model, func(t *testing.T) {
			doc, err := e.Check(view, req)
			if err != nil {
				t.Fatal(err)
			}
			v := doc.Verdict
			if doc.Model == nil || doc.Model.ID != "anthropic/claude-sonnet-4.5" || doc.Service.Slug != "anthropic" {
				t.Fatalf("model %+v service %+v, want Sonnet at Anthropic", doc.Model, doc.Service)
			}
			if *doc.Status != api.PartialOutage || doc.Model.Status != api.PartialOutage || v.Level != "down" {
				t.Errorf("status %s level %s, want the model's partial outage at Anthropic, not Anthropic's operational", *doc.Status, v.Level)
			}
			if v.Action != api.ActionFailover || v.Blame != api.BlameProvider {
				t.Errorf("advice %s/%s (%s), want failover, the provider's", v.Action, v.Blame, v.Reason)
			}
			if len(v.Alternatives) == 0 || v.Alternatives[0].Slug != "aws-bedrock" || !strings.Contains(v.Alternatives[0].Why, "99.9 %") {
				t.Errorf("alternatives %+v, want Bedrock first, with its 99.9 %%", v.Alternatives)
			}
			var here, there bool
			for _, ev := range v.Evidence {
				here = here || ev.Source == api.EvidenceGateway && strings.Contains(ev.Says, "60.0 %") && strings.Contains(ev.Says, "not your key's")
				there = there || ev.Source == api.EvidenceGateway && strings.Contains(ev.Says, "Amazon Bedrock") && strings.Contains(ev.Says, "99.9 %")
			}
			if !here || !there {
				t.Errorf("evidence %+v lacks the 60 %% at Anthropic or the 99.9 %% on Bedrock", v.Evidence)
			}
			if doc.Basis != nil {
				t.Errorf("basis %v: the service's basis is not the model's", *doc.Basis)
			}
		})
	}
}

func TestCheckModelEdges(t *testing.T) {
	t.Parallel()
	e, v, _ := newTestEngine(t)
	t.Run("the model fine everywhere: go ahead", func(t *testing.T) {
		doc, err := e.Check(withSonnet(v, pct(99.5), pct(99.9)), Request{Query: "claude-sonnet-4.5"})
		if err != nil {
			t.Fatal(err)
		}
		if doc.Verdict.Action != api.ActionProceed || *doc.Status != api.Operational {
			t.Errorf("verdict %+v", doc.Verdict)
		}
	})
	t.Run("at Bedrock, where it is fine", func(t *testing.T) {
		doc, err := e.Check(withSonnet(v, pct(60), pct(99.9)), Request{Query: "bedrock", Model: "claude-sonnet-4.5", Error: "500"})
		if err != nil {
			t.Fatal(err)
		}
		if doc.Service.Slug != "aws-bedrock" || *doc.Status != api.Operational || doc.Verdict.Action != api.ActionRetry {
			t.Errorf("service %s status %s action %s, want Bedrock operational: retry", doc.Service.Slug, *doc.Status, doc.Verdict.Action)
		}
	})
	t.Run("nobody reports on it: unknown, not Anthropic's operational", func(t *testing.T) {
		doc, err := e.Check(withSonnet(v, nil, nil), Request{Query: "claude-opus-4.5"})
		if err != nil {
			t.Fatal(err)
		}
		if *doc.Status != api.Unknown || doc.Verdict.Level != "unknown" || doc.Model.Status != api.Unknown {
			t.Errorf("status %s, want unknown", *doc.Status)
		}
		if !strings.Contains(doc.Verdict.Evidence[0].Says, "No source reports on Claude Opus 4.5 at Anthropic") {
			t.Errorf("evidence %+v", doc.Verdict.Evidence)
		}
	})
	t.Run("a view without models: unknown", func(t *testing.T) {
		doc, err := e.Check(v, Request{Query: "claude-sonnet-4.5", Error: "529"})
		if err != nil {
			t.Fatal(err)
		}
		if *doc.Status != api.Unknown || doc.Verdict.Action == api.ActionFailover {
			t.Errorf("status %s action %s, want unknown and no failover on no evidence", *doc.Status, doc.Verdict.Action)
		}
	})
	t.Run("a model the catalog does not watch", func(t *testing.T) {
		_, err := e.Check(v, Request{Query: "anthropic", Model: "claude-sonnet-9"})
		if bad := (*InputError)(nil); !errors.As(err, &bad) || bad.Param != "model" {
			t.Errorf("err = %v, want a 400 naming model", err)
		}
	})
	t.Run("too long a model", func(t *testing.T) {
		_, err := e.Check(v, Request{Query: "anthropic", Model: strings.Repeat("a", MaxQuery+1)})
		if bad := (*InputError)(nil); !errors.As(err, &bad) || bad.Param != "model" {
			t.Errorf("err = %v, want a 400 naming model", err)
		}
	})
	t.Run("our own completions are cited as measured", func(t *testing.T) {
		view := withSonnet(v, nil, pct(99.9))
		m := view.models["anthropic/claude-sonnet-4.5"]
		m.Providers = append(m.Providers, api.ModelProvider{Service: "anthropic", Provider: "Anthropic", Status: api.MajorOutage, Uptime: pct(20),
			Source: api.ModelSource{ID: "aistatus", Kind: api.ModelSourceMeasured, Name: "aistatus's own completions", Window: "1h"}})
		view.models["anthropic/claude-sonnet-4.5"] = m
		doc, err := e.Check(view, Request{Query: "claude-sonnet-4.5", Error: "529"})
		if err != nil {
			t.Fatal(err)
		}
		if *doc.Status != api.MajorOutage || doc.Verdict.Action != api.ActionFailover {
			t.Errorf("status %s action %s, want our measured major outage and a failover", *doc.Status, doc.Verdict.Action)
		}
		found := false
		for _, ev := range doc.Verdict.Evidence {
			found = found || ev.Source == api.EvidenceMeasured && strings.Contains(ev.Says, "20.0 % of our own completions")
		}
		if !found {
			t.Errorf("evidence %+v lacks our measurement", doc.Verdict.Evidence)
		}
	})
	t.Run("a service name is still the service", func(t *testing.T) {
		doc, err := e.Check(withSonnet(v, pct(60), pct(99.9)), Request{Query: "claude"})
		if err != nil {
			t.Fatal(err)
		}
		if doc.Model != nil || doc.Service.Slug != "anthropic" {
			t.Errorf("model %+v, want none: claude is Anthropic", doc.Model)
		}
	})
}

// FuzzCheckModel: whatever q and model are, a check answers or refuses
// naming the parameter, and an answer about a model is about a tracked
// service, with the model's status never borrowed from it.
func FuzzCheckModel(f *testing.F) {
	for _, seed := range [][2]string{
		{"claude-sonnet-4.5", ""}, {"anthropic", "claude-sonnet-4.5"}, {"bedrock", "Sonnet 4.5"}, {"anthropic/claude-sonnet-4.5", ""},
		{"x", "y"}, {"", "claude-sonnet-4.5"}, {"anthropic", "\xff"}, {"llama-3.3-70b-versatile", ""}, {"groq", "gpt-oss-120b"},
	} {
		f.Add(seed[0], seed[1])
	}
	e, v, _ := newTestEngine(f)
	view := withSonnet(v, pct(60), pct(99.9))
	f.Fuzz(func(t *testing.T, q, model string) {
		doc, err := e.Check(view, Request{Query: q, Model: model, Error: "529"})
		if err != nil {
			if bad := (*InputError)(nil); !errors.As(err, &bad) || (bad.Param != "q" && bad.Param != "model") {
				t.Fatalf("Check(%q, %q): %v", q, model, err)
			}
			return
		}
		if doc.Model == nil {
			return
		}
		if !doc.Tracked || doc.Service == nil || doc.Status == nil || *doc.Status != doc.Model.Status {
			t.Fatalf("Check(%q, %q): a model answer %+v not about a tracked service", q, model, doc)
		}
		if doc.Model.ID != "anthropic/claude-sonnet-4.5" && *doc.Status != api.Unknown {
			t.Fatalf("Check(%q, %q): %s reads %s with no source", q, model, doc.Model.ID, *doc.Status)
		}
	})
}

// TestCheckModelWitnesses: with two gateways, a provider failing at one of
// them only is that gateway's trouble: the model reads up there, the
// detail says why, and it is an alternative; a provider whose trouble two
// witnesses confirm is no alternative, whatever its third witness says.
func TestCheckModelWitnesses(t *testing.T) {
	t.Parallel()
	e, v, _ := newTestEngine(t)
	vercel := func(service, provider string, uptime *float64) api.ModelProvider {
		p := gatewayEntry(service, provider, uptime)
		p.Source.ID, p.Source.Name, p.Source.Window = "vercel", "Vercel AI Gateway", "15m"
		return p
	}
	measured := api.ModelProvider{Service: "google-gemini", Provider: "Google", Status: api.MajorOutage,
		Source: api.ModelSource{ID: "aistatus", Kind: api.ModelSourceMeasured, Name: "aistatus's own completions", Window: "1h"}}
	view := modelView{fakeView: v, models: map[string]api.ModelDoc{
		"anthropic/claude-sonnet-4.5": {ID: "anthropic/claude-sonnet-4.5", Name: "Claude Sonnet 4.5", Author: "anthropic",
			Providers: []api.ModelProvider{
				gatewayEntry("anthropic", "Anthropic", pct(60)),
				gatewayEntry("aws-bedrock", "Amazon Bedrock", pct(40)), vercel("aws-bedrock", "bedrock", pct(99.8)),
				// Google: up at Vercel, but OpenRouter and our completions both fail.
				gatewayEntry("google-gemini", "Google", pct(30)), vercel("google-gemini", "vertex", pct(99.9)), measured,
			}},
	}}
	doc, err := e.Check(view, Request{Query: "bedrock", Model: "claude-sonnet-4.5"})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Model == nil || doc.Model.Status != api.Operational || doc.Model.Agreement == nil ||
		doc.Model.Agreement.Verdict != api.AgreementGatewayTrouble || !strings.Contains(doc.Verdict.Detail, "OpenRouter's routing, not the provider's") {
		t.Errorf("at Bedrock: model %+v, detail %q: want operational, OpenRouter's trouble, said", doc.Model, doc.Verdict.Detail)
	}
	doc, err = e.Check(view, Request{Query: "anthropic", Model: "claude-sonnet-4.5", Error: "529"})
	if err != nil {
		t.Fatal(err)
	}
	var alts []string
	for _, a := range doc.Verdict.Alternatives {
		alts = append(alts, a.Slug+" "+string(a.Status))
	}
	if strings.Join(alts, ", ") != "aws-bedrock operational" {
		t.Errorf("alternatives %v, want Bedrock alone: Google's trouble is confirmed by two witnesses", alts)
	}
}
