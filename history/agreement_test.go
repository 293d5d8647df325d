package history

import (
	"slices"
	"testing"

	"github.com/aistatus/aistatus/api"
)

// TestAgreeModelStatus goes over the agreement rule, verdict by verdict:
// one gateway's failures are its own routing until a second witness
// agrees; two witnesses in trouble are the provider's trouble; a source's
// regions are one witness; the probe is shown, never counted.
func TestAgreeModelStatus(t *testing.T) {
	t.Parallel()
	up, low := 99.9, 40.0
	entry := func(source, kind string, status api.Status, uptime *float64) api.ModelProvider {
		return api.ModelProvider{Service: "aws-bedrock", Provider: "Amazon Bedrock", Status: status, Uptime: uptime,
			Source: api.ModelSource{ID: source, Kind: kind, Name: source, Window: "5m"}}
	}
	openrouter := func(s api.Status, u *float64) api.ModelProvider {
		return entry("openrouter", api.ModelSourceGateway, s, u)
	}
	vercel := func(s api.Status, u *float64) api.ModelProvider { return entry("vercel", api.ModelSourceGateway, s, u) }
	measured := func(s api.Status) api.ModelProvider { return entry("aistatus", api.ModelSourceMeasured, s, nil) }
	component := func(s api.Status) api.ModelProvider { return entry("aws-bedrock", api.ModelSourceComponent, s, nil) }
	for _, tc := range []struct {
		name      string
		providers []api.ModelProvider
		probe     api.Status
		status    api.Status
		verdict   string
		dissent   []string
		witnesses int
	}{
		{"no entry", nil, "", api.Unknown, api.AgreementNone, nil, 0},
		{"only unknown", []api.ModelProvider{openrouter(api.Unknown, nil)}, "", api.Unknown, api.AgreementNone, nil, 1},
		{"one gateway up", []api.ModelProvider{openrouter(api.Operational, &up)}, "", api.Operational, api.AgreementSingle, nil, 1},
		{"one gateway down, nothing else", []api.ModelProvider{openrouter(api.MajorOutage, &low)}, "", api.MajorOutage, api.AgreementSingle, nil, 1},
		{"two gateways up", []api.ModelProvider{openrouter(api.Operational, &up), vercel(api.Operational, &up)}, "",
			api.Operational, api.AgreementAgreed, nil, 2},
		{"one gateway fails, the other succeeds", []api.ModelProvider{openrouter(api.MajorOutage, &low), vercel(api.Operational, &up)}, "",
			api.Operational, api.AgreementGatewayTrouble, []string{"openrouter"}, 2},
		{"the other way round", []api.ModelProvider{openrouter(api.Operational, &up), vercel(api.PartialOutage, &low)}, "",
			api.Operational, api.AgreementGatewayTrouble, []string{"vercel"}, 2},
		{"a second witness agrees", []api.ModelProvider{openrouter(api.MajorOutage, &low), measured(api.PartialOutage), vercel(api.Operational, &up)}, "",
			api.PartialOutage, api.AgreementConfirmed, []string{"vercel"}, 3},
		{"both gateways fail", []api.ModelProvider{openrouter(api.MajorOutage, &low), vercel(api.Degraded, &low)}, "",
			api.Degraded, api.AgreementAgreed, nil, 2},
		{"the vendor's component alone disputed", []api.ModelProvider{component(api.MajorOutage), openrouter(api.Operational, &up)}, "",
			api.Operational, api.AgreementDisputed, []string{"aws-bedrock"}, 2},
		{"a gateway's regions are one witness", []api.ModelProvider{openrouter(api.MajorOutage, &low), openrouter(api.Operational, &up),
			vercel(api.MajorOutage, &low)}, "", api.Operational, api.AgreementGatewayTrouble, []string{"vercel"}, 2},
		{"the failing probe is shown, not counted", []api.ModelProvider{openrouter(api.MajorOutage, &low), vercel(api.Operational, &up)},
			api.MajorOutage, api.Operational, api.AgreementGatewayTrouble, []string{"openrouter"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var probes map[string]api.ModelWitness
			if tc.probe != "" {
				probes = map[string]api.ModelWitness{"aws-bedrock": {Source: "aws-bedrock", Kind: api.ModelSourceProbe, Status: tc.probe, Counted: true}}
			}
			var a api.ModelAgreement
			if all := ModelAgreements(tc.providers, probes); len(all) == 1 {
				a = all[0]
			} else {
				a = AgreeModelStatus("aws-bedrock", ModelWitnesses(tc.providers, "aws-bedrock"))
			}
			if a.Status != tc.status || a.Verdict != tc.verdict || len(a.Witnesses) != tc.witnesses || a.Statement == "" {
				t.Errorf("agreement = %s, %s, %d witnesses (%q), want %s, %s, %d", a.Status, a.Verdict, len(a.Witnesses), a.Statement,
					tc.status, tc.verdict, tc.witnesses)
			}
			if tc.dissent != nil && !slices.Equal(a.Dissent, tc.dissent) {
				t.Errorf("dissent = %v, want %v", a.Dissent, tc.dissent)
			}
			for _, w := range a.Witnesses {
				if w.Kind == api.ModelSourceProbe && w.Counted {
					t.Errorf("the probe is counted: %+v", w)
				}
			}
			if got := BestModelStatus(tc.providers, "aws-bedrock"); got != tc.status {
				t.Errorf("BestModelStatus = %s, want the agreed %s", got, tc.status)
			}
		})
	}
}

// TestModelStatusSourceFollowsTheAgreement: the entry a model's status is
// from is at a service whose witnesses agree on that status, not one whose
// entry says it while two others confirm trouble there.
func TestModelStatusSourceFollowsTheAgreement(t *testing.T) {
	t.Parallel()
	up, low := 99.0, 85.0
	at := func(service, source string, status api.Status, uptime *float64) api.ModelProvider {
		return api.ModelProvider{Service: service, Provider: service, Status: status, Uptime: uptime,
			Source: api.ModelSource{ID: source, Kind: api.ModelSourceGateway, Name: source}}
	}
	providers := []api.ModelProvider{
		// Bedrock: two witnesses confirm a partial outage, one sees it up.
		at("aws-bedrock", "openrouter", api.PartialOutage, &low), at("aws-bedrock", "vercel", api.Operational, &up),
		{Service: "aws-bedrock", Provider: "Amazon Bedrock", Status: api.PartialOutage,
			Source: api.ModelSource{ID: "aws-bedrock", Kind: api.ModelSourceComponent, Name: "page"}},
		// Anthropic: up, by one witness.
		at("anthropic", "openrouter", api.Operational, &up),
	}
	if got := BestModelStatus(providers, ""); got != api.Operational {
		t.Fatalf("status %s, want operational: Anthropic's", got)
	}
	if from := ModelStatusSource(providers, ""); from == nil || from.Service != "anthropic" {
		t.Errorf("statusFrom %+v, want Anthropic's entry, not Vercel's at Bedrock, where trouble is confirmed", from)
	}
}
