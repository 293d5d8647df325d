package site

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
)

// fixtureNow is when the fixture snapshot was generated.
var fixtureNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

const fixtureBase = "https://aistatus.example"

// span is a period of one status in a service's scripted history.
type span struct {
	from, to time.Time
	status   api.Status
}

func day(d int, hour int) time.Time { return time.Date(2026, 10, d, hour, 0, 0, 0, time.UTC) }

// fixture returns a fixed snapshot of every catalog service: a month of
// checks every 10 minutes, with outages, a maintenance, gaps without data,
// a service never checked, and incidents of every kind. It is built once;
// Render only reads it.
func fixture(t testing.TB) (snapshot.Documents, *history.History) {
	t.Helper()
	f, err := builtFixture()
	if err != nil {
		t.Fatal(err)
	}
	return f.docs, f.h
}

type fixtureData struct {
	docs snapshot.Documents
	h    *history.History
}

var builtFixture = sync.OnceValues(func() (fixtureData, error) {
	docs, h, err := buildFixture()
	return fixtureData{docs, h}, err
})

func buildFixture() (snapshot.Documents, *history.History, error) {
	cat, err := catalog.Default()
	if err != nil {
		return snapshot.Documents{}, nil, err
	}
	now := fixtureNow
	ended := func(t time.Time) *time.Time { return &t }
	incidents := []api.Incident{
		{ID: "anthropic-01JANTH", Service: "anthropic", Headline: "Elevated errors on Claude API", Severity: api.Critical,
			StartedAt: now.Add(-30 * time.Minute), Status: "investigating", Source: api.SourceOfficial,
			URL: "https://status.claude.com/incidents/01JANTH", UpdatedAt: now.Add(-10 * time.Minute)},
		{ID: "openai-01JOAI", Service: "openai", Headline: `Errors on <Responses> & "Chat"`, Severity: api.Major,
			StartedAt: day(25, 10), EndedAt: ended(day(25, 11)), Status: "resolved", Source: api.SourceOfficial,
			URL: "https://status.openai.com/incidents/01JOAI", UpdatedAt: day(25, 11)},
		{ID: "anthropic-probe-1761300000", Service: "anthropic", Headline: "API host not answering", Severity: api.Major,
			StartedAt: day(22, 3), EndedAt: ended(day(22, 4).Add(20 * time.Minute)), Status: "resolved", Source: api.SourceProbe,
			UpdatedAt: day(22, 4).Add(20 * time.Minute)},
		{ID: "cohere-01JCOH", Service: "cohere", Headline: "Increased latency on Embed", Severity: api.Minor,
			StartedAt: day(12, 8), Status: "monitoring", Source: api.SourceOfficial,
			URL: "https://status.cohere.com/incidents/01JCOH", UpdatedAt: day(30, 9)},
		{ID: "groq-01JGRQ", Service: "groq", Headline: "Degraded inference", Severity: api.Minor,
			StartedAt: day(8, 14), EndedAt: ended(day(8, 16)), Status: "resolved", Source: api.SourceOfficial,
			URL: "https://groqstatus.com/incidents/01JGRQ", UpdatedAt: day(8, 16)},
	}
	api.SortIncidents(incidents)

	// Scripted history: every service operational for a month, except these.
	spans := map[string][]span{
		"openai":        {{day(25, 10), day(25, 11), api.MajorOutage}, {now.Add(-2 * time.Hour), now, api.Degraded}},
		"anthropic":     {{day(30, 6), day(30, 9), api.PartialOutage}, {day(22, 3), day(22, 4), api.MajorOutage}, {now.Add(-30 * time.Minute), now, api.MajorOutage}},
		"mistral":       {{now.Add(-time.Hour), now, api.Maintenance}},
		"groq":          {{day(8, 14), day(8, 16), api.Degraded}},
		"runway":        {{day(28, 0), day(28, 12), api.MajorOutage}},
		"deepgram":      {{now.Add(-20 * time.Minute), now, api.PartialOutage}},
		"google-gemini": {{day(10, 0), day(12, 0), ""}}, // "" = not checked: no data
		"perplexity":    {{now.Add(-40 * time.Minute), now, api.MajorOutage}},
		// A service first checked two days ago: its 24 h figure is shown,
		// its 7 and 30 d ones are not enough data.
		"langsmith": {{now.Add(-31 * 24 * time.Hour), now.Add(-48 * time.Hour), ""}},
	}
	h := history.New()
	h.Incidents = incidents
	// The change log behind the maintenance windows: Groq's ended one, and
	// Mistral's going on now.
	for _, c := range []api.Change{
		{Type: api.ChangeStatus, Service: "groq", Time: day(5, 2), OldStatus: api.Operational, NewStatus: api.Maintenance},
		{Type: api.ChangeStatus, Service: "groq", Time: day(5, 4).Add(30 * time.Minute), OldStatus: api.Maintenance, NewStatus: api.Operational},
		{Type: api.ChangeStatus, Service: "mistral", Time: now.Add(-time.Hour), OldStatus: api.Operational, NewStatus: api.Maintenance},
	} {
		h.AddChange(c)
	}
	docs := snapshot.Documents{
		Manifest: snapshot.Manifest{GeneratedAt: now, StaleAfterSeconds: 900, BaseURL: fixtureBase + "/",
			Generator: "aistatus test", Services: len(cat.Services)},
		Status:    api.StatusDoc{Status: "ok", Timestamp: now, Source: "aistatus test", License: api.License},
		Incidents: api.IncidentList{Incidents: incidents, Timestamp: now, License: api.License},
		Models:    fixtureModels(now),
		Retirements: api.RetirementsDoc{Timestamp: now, License: api.License, Retirements: []api.ModelRetirement{
			{ID: "google/gemini-2.0-flash-001", Name: "Gemini 2.0 Flash", Service: "google-gemini", Date: "2026-06-01", State: api.RetirementRetired,
				Source: "openrouter-models", Reason: "OpenRouter's model list announces that it may remove the model after this date"},
			{ID: "google/gemini-2.0-flash-lite-001", Name: "Gemini 2.0 Flash Lite", Service: "google-gemini", Date: "2026-06-01", State: api.RetirementRetired,
				Source: "openrouter-models", Reason: "OpenRouter's model list announces that it may remove the model after this date"},
			{ID: "anthropic/claude-opus-4.1", Name: "Claude Opus 4.1", Service: "anthropic", Date: "2026-12-15", State: api.RetirementAnnounced,
				Source: "openrouter-models", Reason: "OpenRouter's model list announces that it may remove the model after this date"},
		}},
	}
	for i, svc := range cat.Services {
		latency := 80 + float64(i)*7.25
		src := api.Sources{
			Feed:  api.FeedSource{Format: svc.Feed.Format, State: api.FeedUnsupported},
			Probe: api.ProbeSource{State: api.ProbeOK, LatencyMs: &latency, HTTPStatus: 401},
		}
		switch svc.Feed.Format {
		case catalog.FormatNone:
			src.Feed.State, src.Feed.Note = api.FeedNone, svc.Feed.Note
		case catalog.FormatAWSHealth: // a reader this build would not have
		default:
			src.Feed.State = api.FeedOK
		}
		var components []api.Component
		status := api.Operational
		switch svc.Slug {
		case "azure-openai": // never checked
			status = api.Unknown
			src.Feed = api.FeedSource{Format: svc.Feed.Format, State: api.FeedError, Error: "GET https://azure.status.microsoft/feed: 503 Service Unavailable"}
			src.Probe = api.ProbeSource{State: api.ProbeNone}
		case "pinecone":
			src.Feed.State, src.Feed.Error = api.FeedError, "summary.json: unexpected end of JSON input"
			src.Feed.Failure, src.Feed.ConsecutiveFailures, src.Feed.FailingSince = api.FailureSchema, 190, ended(now.Add(-190*time.Minute))
		case "perplexity": // our probes overrule a calm page
			src.Probe = api.ProbeSource{State: api.ProbeFailed, Error: "dial tcp: connection refused"}
			src.Disagreement = &api.Disagreement{By: api.EvidenceProbe, Since: now.Add(-40 * time.Minute), Official: api.Operational,
				Measured: api.MajorOutage, Detail: "Our probes of the API have failed 4 times in a row since 11:20, while the official status page says operational."}
		case "anthropic":
			components = []api.Component{
				{ID: "rwppv331jlwc", Name: "claude.ai", Status: api.PartialOutage},
				{ID: "k8w3r06qmzrp", Name: "Claude API (api.anthropic.com)", Status: api.MajorOutage, InScope: true},
				{ID: "yyzkbfz2thpt", Name: "Claude Code", Group: "Apps", Status: api.Operational},
			}
		}
		if svc.Slug != "azure-openai" {
			sh := h.Track(svc.Slug)
			for at := now.Add(-31 * 24 * time.Hour); !at.After(now); at = at.Add(10 * time.Minute) {
				s := api.Operational
				checked := true
				for _, sp := range spans[svc.Slug] {
					if !at.Before(sp.from) && at.Before(sp.to) || (at.Equal(now) && sp.to.Equal(now)) {
						s, checked = sp.status, sp.status != ""
					}
				}
				if checked {
					sh.Record(at, s, &latency)
				}
			}
			status = sh.LastStatus
		}
		if src.Feed.State == api.FeedOK {
			src.Feed.Status = status
		}
		var checkedAt, dataSince *time.Time
		var uptime api.Uptime
		var coverage api.Coverage
		var probeLatency api.ProbeLatency
		if sh := h.Services[svc.Slug]; sh != nil {
			t, since := sh.LastChecked, sh.DataSince()
			checkedAt, dataSince = &t, &since
			uptime, coverage, probeLatency = sh.Uptime(now), sh.Coverage(now), sh.ProbeLatency(now)
		}
		if components == nil {
			components = []api.Component{}
		}
		var own []api.Incident
		for _, inc := range incidents {
			if inc.Service == svc.Slug {
				own = append(own, inc)
			}
		}
		var lat *float64
		if src.Probe.State == api.ProbeOK {
			lat = src.Probe.LatencyMs
		}
		docs.Status.Services = append(docs.Status.Services, api.ServiceSummary{
			Slug: svc.Slug, Name: svc.Name, Category: svc.Category, Domain: svc.Domain, Status: status,
			LastChecked: checkedAt, URL: svc.URL, StatusPage: svc.StatusPage, LatencyMs: lat,
			Feed: src.Feed.State, Disagreement: src.Disagreement,
		})
		var surfaces []api.SurfaceDoc
		if svc.Slug == "anthropic" {
			surfaces = fixtureSurfaces(now)
		}
		docs.Services = append(docs.Services, api.ServiceDoc{
			Slug: svc.Slug, Name: svc.Name, Category: svc.Category, Domain: svc.Domain, URL: svc.URL,
			StatusPage: svc.StatusPage, Status: status, LastChecked: checkedAt, LatencyMs: lat, Uptime: uptime,
			UptimeCoverage: coverage, DataSince: dataSince, Components: components, Measured: []api.MeasuredModel{},
			ProbeLatency: probeLatency, Surfaces: surfaces,
			Incidents: own, Sources: src, Timestamp: now, License: api.License,
		})
	}
	return situated(docs), h, nil
}

// situated is docs with the situation made from its documents, as a build
// makes it: a test that changes a document makes it again.
func situated(docs snapshot.Documents) snapshot.Documents {
	docs.Situation = history.Situation(docs.Manifest.GeneratedAt, docs.Services, docs.Models.Models, docs.Retirements.Retirements)
	return docs
}

// fixtureModels are two models some source reports on — Claude Sonnet 4.5
// failing at Anthropic and fine on Bedrock and in one Vertex region, and a
// Cohere model by its page's component — and one nobody reports on.
func fixtureModels(now time.Time) api.ModelsDoc {
	pct := func(v float64) *float64 { return &v }
	region := "us-east5"
	gw := api.ModelSource{ID: "openrouter", Kind: api.ModelSourceGateway, Name: "OpenRouter", Window: "5m",
		Basis: "OpenRouter's uptime of its own requests", Attribution: "OpenRouter (openrouter.ai): the uptime of OpenRouter's own requests"}
	return api.ModelsDoc{Timestamp: now, License: api.License, Rules: history.CurrentModelRules(),
		Models: []api.ModelDoc{
			{ID: "anthropic/claude-sonnet-4.5", Name: "Claude Sonnet 4.5", Author: "anthropic", Service: "anthropic", Status: api.Operational, Providers: []api.ModelProvider{
				{Service: "anthropic", Provider: "Anthropic", Status: api.PartialOutage, Uptime: pct(60), Source: gw},
				{Service: "aws-bedrock", Provider: "Amazon Bedrock", Status: api.Operational, Uptime: pct(99.9), Source: gw},
				{Service: "google-gemini", Provider: "Google", Region: &region, Status: api.Operational, Uptime: pct(97.25), Source: gw},
				{Service: "google-gemini", Provider: "Google AI Studio", Status: api.Unknown, Source: gw},
			}},
			{ID: "cohere/command-a", Name: "Command A", Author: "cohere", Service: "cohere", Status: api.Degraded, Providers: []api.ModelProvider{
				{Service: "cohere", Provider: "Cohere", Status: api.Degraded, Source: api.ModelSource{ID: "cohere", Kind: api.ModelSourceComponent,
					Name: "Cohere's status page", Window: "current", Component: "command-a-03-2025"}},
			}},
			{ID: "openai/gpt-5", Name: "GPT-5", Author: "openai", Service: "openai", Status: api.Unknown, Providers: []api.ModelProvider{}},
		},
		Sources: []api.ModelSourceHealth{{ID: "openrouter", Kind: "gateway", Name: "OpenRouter", Enabled: true, State: api.FeedOK,
			Attribution: gw.Attribution}},
	}
}

// fixtureSurfaces are Anthropic's surfaces in the fixture: claude.ai in a
// partial outage with an incident of its own (not the API's), which Claude
// Code shares; Claude Code operational; the console without a word from the
// page.
func fixtureSurfaces(now time.Time) []api.SurfaceDoc {
	appDown := api.Incident{ID: "anthropic-01JAPP", Service: "anthropic", Headline: "claude.ai and Claude Code unavailable",
		Severity: api.Major, StartedAt: now.Add(-20 * time.Minute), Status: "identified", Source: api.SourceOfficial,
		URL: "https://status.claude.com/incidents/01JAPP", UpdatedAt: now.Add(-5 * time.Minute)}
	return []api.SurfaceDoc{
		{ID: catalog.SurfaceAPI, Name: "Anthropic API", Status: api.MajorOutage, Basis: api.BasisOfficial},
		{ID: catalog.SurfaceApp, Name: "claude.ai", Status: api.PartialOutage, Basis: api.BasisOfficial,
			Incidents: []api.Incident{appDown}},
		{ID: catalog.SurfaceAgent, Name: "Claude Code", Status: api.Operational, Basis: api.BasisOfficial,
			Incidents: []api.Incident{appDown}},
		{ID: catalog.SurfaceConsole, Name: "Claude Console", Status: api.Unknown, Basis: api.BasisNone},
	}
}

// claudeAppOutage is the fixture during a major outage of claude.ai and
// Claude Code with the Claude API up: the page's components and incident
// are those of a real status.claude.com summary (testdata/README.md), with
// the API's component operational and the incident's start moved to the
// fixture's clock. Anthropic's measured completions are made up (the
// operator's own measurements have no public capture). The documents are
// copies: the shared fixture is left as it is.
func claudeAppOutage(t testing.TB) (snapshot.Documents, *history.History) {
	t.Helper()
	docs, h := fixture(t)
	now := docs.Manifest.GeneratedAt
	outage := api.Incident{ID: api.OfficialIncidentID("anthropic", "q2kg8n613kr3"), Service: "anthropic",
		Headline: "Elevated errors across all models", Severity: api.Critical, StartedAt: now.Add(-25 * time.Minute),
		Status: "investigating", Source: api.SourceOfficial, URL: "https://stspg.io/p7pqqb00414c", UpdatedAt: now.Add(-5 * time.Minute)}
	ms := func(v float64) *float64 { return &v }
	component := func(id, name string, status api.Status) api.SurfaceComponent {
		return api.SurfaceComponent{ID: id, Name: name, Status: status}
	}
	app := []api.SurfaceComponent{component("rwppv331jlwc", "claude.ai", api.MajorOutage),
		component("bpp5gb3hpjcl", "Claude Cowork", api.MajorOutage)}
	agent := []api.SurfaceComponent{component("yyzkbfz2thpt", "Claude Code", api.MajorOutage)}
	console := []api.SurfaceComponent{component("0qbwn08sd68x", "Claude Console (platform.claude.com)", api.Operational)}

	docs.Services = slices.Clone(docs.Services)
	i := slices.IndexFunc(docs.Services, func(d api.ServiceDoc) bool { return d.Slug == "anthropic" })
	doc := &docs.Services[i]
	doc.Status, doc.Basis = api.Operational, api.BasisOfficial
	doc.Components = []api.Component{
		{ID: "rwppv331jlwc", Name: "claude.ai", Status: api.MajorOutage},
		{ID: "0qbwn08sd68x", Name: "Claude Console (platform.claude.com)", Status: api.Operational},
		{ID: "k8w3r06qmzrp", Name: "Claude API (api.anthropic.com)", Status: api.Operational, InScope: true},
		{ID: "yyzkbfz2thpt", Name: "Claude Code", Status: api.MajorOutage},
		{ID: "bpp5gb3hpjcl", Name: "Claude Cowork", Status: api.MajorOutage},
		{ID: "0scnb50nvy53", Name: "Claude for Government", Status: api.Operational},
	}
	doc.Incidents = slices.DeleteFunc(slices.Clone(doc.Incidents), func(inc api.Incident) bool { return inc.Open() })
	doc.Surfaces = []api.SurfaceDoc{
		{ID: catalog.SurfaceAPI, Name: "Anthropic API", Status: api.Operational, Basis: api.BasisOfficial,
			Components: []api.SurfaceComponent{component("k8w3r06qmzrp", "Claude API (api.anthropic.com)", api.Operational)},
			Incidents:  doc.Incidents},
		{ID: catalog.SurfaceApp, Name: "claude.ai", Status: api.MajorOutage, Basis: api.BasisOfficial, Components: app,
			Incidents: []api.Incident{outage}, Uptime: api.Uptime{H24: ms(98.26)}, UptimeCoverage: api.Coverage{H24: 1, D7: 0.3, D30: 0.07}},
		{ID: catalog.SurfaceAgent, Name: "Claude Code", Status: api.MajorOutage, Basis: api.BasisOfficial, Components: agent,
			Incidents: []api.Incident{outage}},
		{ID: catalog.SurfaceConsole, Name: "Claude Console", Status: api.Operational, Basis: api.BasisOfficial, Components: console,
			Incidents: []api.Incident{}},
	}
	last := now.Add(-2 * time.Minute)
	doc.Measured = []api.MeasuredModel{{Model: "anthropic/claude-haiku-4.5", APIModel: "claude-haiku-4-5", Status: api.Operational,
		LastSampleAt: &last, LastOutcome: api.OutcomeOK, Windows: api.MeasuredWindows{
			Hour: api.MeasuredWindow{Window: "1h", Samples: 12, TTFTMs: api.Percentiles{P50: ms(412), P95: ms(980)},
				TotalMs: api.Percentiles{P50: ms(640), P95: ms(1400)}, ErrorRate: ms(0)},
			Day: api.MeasuredWindow{Window: "24h", Samples: 288, TTFTMs: api.Percentiles{P50: ms(430), P95: ms(1210)},
				TotalMs: api.Percentiles{P50: ms(655), P95: ms(1720)}, ErrorRate: ms(3.0 / 288)},
		}}}

	docs.Status.Services = slices.Clone(docs.Status.Services)
	j := slices.IndexFunc(docs.Status.Services, func(s api.ServiceSummary) bool { return s.Slug == "anthropic" })
	docs.Status.Services[j].Status = api.Operational
	docs.Incidents.Incidents = slices.DeleteFunc(slices.Clone(docs.Incidents.Incidents), func(inc api.Incident) bool {
		return inc.Service == "anthropic" && inc.Open()
	})
	return situated(docs), h
}
