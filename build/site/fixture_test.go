package site

import (
	"sync"
	"testing"
	"time"

	"github.com/aistatus/aistatus/snapshot"
)

// fixtureNow is when the fixture snapshot was generated.
var fixtureNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

const fixtureBase = "https://aistatus.example"

// span is a period of one status in a service's scripted history.
type span struct {
	from, to time.Time
	status   snapshot.Status
}

func day(d int, hour int) time.Time { return time.Date(2026, 10, d, hour, 0, 0, 0, time.UTC) }

// fixture returns a fixed snapshot of every catalog service: a month of
// checks every 10 minutes, with outages, a maintenance, gaps without data,
// a service never checked, and incidents of every kind. It is built once;
// Render only reads it.
func fixture(t testing.TB) (snapshot.Documents, *snapshot.History) {
	t.Helper()
	f, err := builtFixture()
	if err != nil {
		t.Fatal(err)
	}
	return f.docs, f.h
}

type fixtureData struct {
	docs snapshot.Documents
	h    *snapshot.History
}

var builtFixture = sync.OnceValues(func() (fixtureData, error) {
	docs, h, err := buildFixture()
	return fixtureData{docs, h}, err
})

func buildFixture() (snapshot.Documents, *snapshot.History, error) {
	cat, err := snapshot.DefaultCatalog()
	if err != nil {
		return snapshot.Documents{}, nil, err
	}
	now := fixtureNow
	ended := func(t time.Time) *time.Time { return &t }
	incidents := []snapshot.Incident{
		{ID: "anthropic-01JANTH", Service: "anthropic", Headline: "Elevated errors on Claude API", Severity: snapshot.Critical,
			StartedAt: now.Add(-30 * time.Minute), Status: "investigating", Source: snapshot.SourceOfficial,
			URL: "https://status.claude.com/incidents/01JANTH", UpdatedAt: now.Add(-10 * time.Minute)},
		{ID: "openai-01JOAI", Service: "openai", Headline: `Errors on <Responses> & "Chat"`, Severity: snapshot.Major,
			StartedAt: day(25, 10), EndedAt: ended(day(25, 11)), Status: "resolved", Source: snapshot.SourceOfficial,
			URL: "https://status.openai.com/incidents/01JOAI", UpdatedAt: day(25, 11)},
		{ID: "anthropic-probe-1761300000", Service: "anthropic", Headline: "API host not answering", Severity: snapshot.Major,
			StartedAt: day(22, 3), EndedAt: ended(day(22, 4).Add(20 * time.Minute)), Status: "resolved", Source: snapshot.SourceProbe,
			UpdatedAt: day(22, 4).Add(20 * time.Minute)},
		{ID: "cohere-01JCOH", Service: "cohere", Headline: "Increased latency on Embed", Severity: snapshot.Minor,
			StartedAt: day(12, 8), Status: "monitoring", Source: snapshot.SourceOfficial,
			URL: "https://status.cohere.com/incidents/01JCOH", UpdatedAt: day(30, 9)},
		{ID: "groq-01JGRQ", Service: "groq", Headline: "Degraded inference", Severity: snapshot.Minor,
			StartedAt: day(8, 14), EndedAt: ended(day(8, 16)), Status: "resolved", Source: snapshot.SourceOfficial,
			URL: "https://groqstatus.com/incidents/01JGRQ", UpdatedAt: day(8, 16)},
	}
	snapshot.SortIncidents(incidents)

	// Scripted history: every service operational for a month, except these.
	spans := map[string][]span{
		"openai":        {{day(25, 10), day(25, 11), snapshot.MajorOutage}, {now.Add(-2 * time.Hour), now, snapshot.Degraded}},
		"anthropic":     {{day(30, 6), day(30, 9), snapshot.PartialOutage}, {day(22, 3), day(22, 4), snapshot.MajorOutage}, {now.Add(-30 * time.Minute), now, snapshot.MajorOutage}},
		"mistral":       {{now.Add(-time.Hour), now, snapshot.Maintenance}},
		"groq":          {{day(8, 14), day(8, 16), snapshot.Degraded}},
		"runway":        {{day(28, 0), day(28, 12), snapshot.MajorOutage}},
		"deepgram":      {{now.Add(-20 * time.Minute), now, snapshot.PartialOutage}},
		"google-gemini": {{day(10, 0), day(12, 0), ""}}, // "" = not checked: no data
		"perplexity":    {{now.Add(-40 * time.Minute), now, snapshot.MajorOutage}},
		// A service first checked two days ago: its 24 h figure is shown,
		// its 7 and 30 d ones are not enough data.
		"langsmith": {{now.Add(-31 * 24 * time.Hour), now.Add(-48 * time.Hour), ""}},
	}
	h := snapshot.NewHistory()
	h.Incidents = incidents
	// The change log behind the maintenance windows: Groq's ended one, and
	// Mistral's going on now.
	for _, c := range []snapshot.Change{
		{Type: snapshot.ChangeStatus, Service: "groq", Time: day(5, 2), OldStatus: snapshot.Operational, NewStatus: snapshot.Maintenance},
		{Type: snapshot.ChangeStatus, Service: "groq", Time: day(5, 4).Add(30 * time.Minute), OldStatus: snapshot.Maintenance, NewStatus: snapshot.Operational},
		{Type: snapshot.ChangeStatus, Service: "mistral", Time: now.Add(-time.Hour), OldStatus: snapshot.Operational, NewStatus: snapshot.Maintenance},
	} {
		h.AddChange(c)
	}
	docs := snapshot.Documents{
		Manifest: snapshot.Manifest{GeneratedAt: now, StaleAfterSeconds: 900, BaseURL: fixtureBase + "/",
			Generator: "aistatus test", Services: len(cat.Services)},
		Status:    snapshot.StatusDoc{Status: "ok", Timestamp: now, Source: "aistatus test", License: snapshot.License},
		Incidents: snapshot.IncidentList{Incidents: incidents, Timestamp: now, License: snapshot.License},
		Models:    fixtureModels(now),
	}
	for i, svc := range cat.Services {
		latency := 80 + float64(i)*7.25
		src := snapshot.Sources{
			Feed:  snapshot.FeedSource{Format: svc.Feed.Format, State: snapshot.FeedUnsupported},
			Probe: snapshot.ProbeSource{State: snapshot.ProbeOK, LatencyMs: &latency, HTTPStatus: 401},
		}
		switch svc.Feed.Format {
		case snapshot.FormatNone:
			src.Feed.State, src.Feed.Note = snapshot.FeedNone, svc.Feed.Note
		case snapshot.FormatAWSHealth: // a reader this build would not have
		default:
			src.Feed.State = snapshot.FeedOK
		}
		var components []snapshot.Component
		status := snapshot.Operational
		switch svc.Slug {
		case "azure-openai": // never checked
			status = snapshot.Unknown
			src.Feed = snapshot.FeedSource{Format: svc.Feed.Format, State: snapshot.FeedError, Error: "GET https://azure.status.microsoft/feed: 503 Service Unavailable"}
			src.Probe = snapshot.ProbeSource{State: snapshot.ProbeNone}
		case "pinecone":
			src.Feed.State, src.Feed.Error = snapshot.FeedError, "summary.json: unexpected end of JSON input"
			src.Feed.Failure, src.Feed.ConsecutiveFailures, src.Feed.FailingSince = snapshot.FailureSchema, 190, ended(now.Add(-190*time.Minute))
		case "perplexity": // our probes overrule a calm page
			src.Probe = snapshot.ProbeSource{State: snapshot.ProbeFailed, Error: "dial tcp: connection refused"}
			src.Disagreement = &snapshot.Disagreement{By: snapshot.EvidenceProbe, Since: now.Add(-40 * time.Minute), Official: snapshot.Operational,
				Measured: snapshot.MajorOutage, Detail: "Our probes of the API have failed 4 times in a row since 11:20, while the official status page says operational."}
		case "anthropic":
			components = []snapshot.Component{
				{ID: "rwppv331jlwc", Name: "claude.ai", Status: snapshot.PartialOutage},
				{ID: "k8w3r06qmzrp", Name: "Claude API (api.anthropic.com)", Status: snapshot.MajorOutage, InScope: true},
				{ID: "yyzkbfz2thpt", Name: "Claude Code", Group: "Apps", Status: snapshot.Operational},
			}
		}
		if svc.Slug != "azure-openai" {
			sh := h.Track(svc.Slug)
			for at := now.Add(-31 * 24 * time.Hour); !at.After(now); at = at.Add(10 * time.Minute) {
				s := snapshot.Operational
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
		if src.Feed.State == snapshot.FeedOK {
			src.Feed.Status = status
		}
		var checkedAt, dataSince *time.Time
		var uptime snapshot.Uptime
		var coverage snapshot.Coverage
		var probeLatency snapshot.ProbeLatency
		if sh := h.Services[svc.Slug]; sh != nil {
			t, since := sh.LastChecked, sh.DataSince()
			checkedAt, dataSince = &t, &since
			uptime, coverage, probeLatency = sh.Uptime(now), sh.Coverage(now), sh.ProbeLatency(now)
		}
		if components == nil {
			components = []snapshot.Component{}
		}
		var own []snapshot.Incident
		for _, inc := range incidents {
			if inc.Service == svc.Slug {
				own = append(own, inc)
			}
		}
		var lat *float64
		if src.Probe.State == snapshot.ProbeOK {
			lat = src.Probe.LatencyMs
		}
		docs.Status.Services = append(docs.Status.Services, snapshot.ServiceSummary{
			Slug: svc.Slug, Name: svc.Name, Category: svc.Category, Domain: svc.Domain, Status: status,
			LastChecked: checkedAt, URL: svc.URL, StatusPage: svc.StatusPage, LatencyMs: lat,
			Feed: src.Feed.State, Disagreement: src.Disagreement,
		})
		var surfaces []snapshot.SurfaceDoc
		if svc.Slug == "anthropic" {
			surfaces = fixtureSurfaces(now)
		}
		docs.Services = append(docs.Services, snapshot.ServiceDoc{
			Slug: svc.Slug, Name: svc.Name, Category: svc.Category, Domain: svc.Domain, URL: svc.URL,
			StatusPage: svc.StatusPage, Status: status, LastChecked: checkedAt, LatencyMs: lat, Uptime: uptime,
			UptimeCoverage: coverage, DataSince: dataSince, Components: components, Measured: []snapshot.MeasuredModel{},
			ProbeLatency: probeLatency, Surfaces: surfaces,
			Incidents: own, Sources: src, Timestamp: now, License: snapshot.License,
		})
	}
	return docs, h, nil
}

// fixtureModels are two models some source reports on — Claude Sonnet 4.5
// failing at Anthropic and fine on Bedrock and in one Vertex region, and a
// Cohere model by its page's component — and one nobody reports on.
func fixtureModels(now time.Time) snapshot.ModelsDoc {
	pct := func(v float64) *float64 { return &v }
	region := "us-east5"
	gw := snapshot.ModelSource{ID: "openrouter", Kind: snapshot.ModelSourceGateway, Name: "OpenRouter", Window: "5m",
		Basis: "OpenRouter's uptime of its own requests", Attribution: "OpenRouter (openrouter.ai): the uptime of OpenRouter's own requests"}
	return snapshot.ModelsDoc{Timestamp: now, License: snapshot.License, Rules: snapshot.CurrentModelRules(),
		Models: []snapshot.ModelDoc{
			{ID: "anthropic/claude-sonnet-4.5", Name: "Claude Sonnet 4.5", Author: "anthropic", Status: snapshot.Operational, Providers: []snapshot.ModelProvider{
				{Service: "anthropic", Provider: "Anthropic", Status: snapshot.PartialOutage, Uptime: pct(60), Source: gw},
				{Service: "aws-bedrock", Provider: "Amazon Bedrock", Status: snapshot.Operational, Uptime: pct(99.9), Source: gw},
				{Service: "google-gemini", Provider: "Google", Region: &region, Status: snapshot.Operational, Uptime: pct(97.25), Source: gw},
				{Service: "google-gemini", Provider: "Google AI Studio", Status: snapshot.Unknown, Source: gw},
			}},
			{ID: "cohere/command-a", Name: "Command A", Author: "cohere", Status: snapshot.Degraded, Providers: []snapshot.ModelProvider{
				{Service: "cohere", Provider: "Cohere", Status: snapshot.Degraded, Source: snapshot.ModelSource{ID: "cohere", Kind: snapshot.ModelSourceComponent,
					Name: "Cohere's status page", Window: "current", Component: "command-a-03-2025"}},
			}},
			{ID: "openai/gpt-5", Name: "GPT-5", Author: "openai", Status: snapshot.Unknown, Providers: []snapshot.ModelProvider{}},
		},
		Sources: []snapshot.ModelSourceHealth{{ID: "openrouter", Kind: "gateway", Name: "OpenRouter", Enabled: true, State: snapshot.FeedOK,
			Attribution: gw.Attribution}},
	}
}

// fixtureSurfaces are Anthropic's surfaces in the fixture: claude.ai in a
// partial outage with an incident of its own (not the API's), which Claude
// Code shares; Claude Code operational; the console without a word from the
// page.
func fixtureSurfaces(now time.Time) []snapshot.SurfaceDoc {
	appDown := snapshot.Incident{ID: "anthropic-01JAPP", Service: "anthropic", Headline: "claude.ai and Claude Code unavailable",
		Severity: snapshot.Major, StartedAt: now.Add(-20 * time.Minute), Status: "identified", Source: snapshot.SourceOfficial,
		URL: "https://status.claude.com/incidents/01JAPP", UpdatedAt: now.Add(-5 * time.Minute)}
	return []snapshot.SurfaceDoc{
		{ID: snapshot.SurfaceAPI, Name: "Anthropic API", Status: snapshot.MajorOutage, Basis: snapshot.BasisOfficial},
		{ID: snapshot.SurfaceApp, Name: "claude.ai", Status: snapshot.PartialOutage, Basis: snapshot.BasisOfficial,
			Incidents: []snapshot.Incident{appDown}},
		{ID: snapshot.SurfaceAgent, Name: "Claude Code", Status: snapshot.Operational, Basis: snapshot.BasisOfficial,
			Incidents: []snapshot.Incident{appDown}},
		{ID: snapshot.SurfaceConsole, Name: "Claude Console", Status: snapshot.Unknown, Basis: snapshot.BasisNone},
	}
}
