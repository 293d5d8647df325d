package feed

import (
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// ddRead reads body as OpenRouter's config.json, with its catalog scope.
func ddRead(t *testing.T, rep reply) (Result, catalog.Service, error) {
	t.Helper()
	srv, _ := serve(t, jsonAccept, map[string]reply{"/config.json": rep})
	svc := catalogService(t, "openrouter", srv)
	res, err := read(t, datadog{}, svc)
	return res, svc, err
}

// TestDatadogRealIncidents reads the real config.json's incidents in full.
// Every one was edited on 2026-09-11 (lastModifiedAt), a week after it was
// resolved: that edit is its last update.
func TestDatadogRealIncidents(t *testing.T) {
	t.Parallel()
	res, svc, err := ddRead(t, reply{file: "real/datadog-openrouter-20260915.json"})
	if err != nil {
		t.Fatal(err)
	}
	inc := func(id, headline, started, ended, updated string) api.Incident {
		return api.Incident{ID: "openrouter-" + id, Service: "openrouter", Headline: headline, Severity: api.Minor,
			StartedAt: *ts(t, started), EndedAt: ts(t, ended), Status: "resolved", Source: api.SourceOfficial,
			URL: svc.StatusPage, UpdatedAt: *ts(t, updated)}
	}
	checkIncidents(t, res.Incidents, []api.Incident{
		inc("2a3d415a-1eed-417f-b269-6e308a7f7990", "Degraded video generation API",
			"2026-09-04T18:27:00Z", "2026-09-04T21:12:00Z", "2026-09-11T02:34:01.430225Z"),
		inc("a80f04f9-7b2a-4094-bd45-e42dd5c2ed8a", "Elevated 429s on Anthropic and OpenAI",
			"2026-08-28T02:15:00Z", "2026-08-28T02:19:00Z", "2026-09-11T02:38:43.9346Z"),
	})
}

// TestDatadogSeverity derives the severity from the worst status the
// timeline gave a component; the incident-level componentsAffected hold the
// status now (operational once resolved) and must not lower it.
func TestDatadogSeverity(t *testing.T) {
	t.Parallel()
	const capture = "datadog-openrouter-20260915.json"
	tests := []struct {
		status string // the first (investigating) step's status for Video
		want   api.Severity
	}{
		{"degraded", api.Minor}, // as served
		{"partial_outage", api.Major},
		{"major_outage", api.Critical},
	}
	for _, tt := range tests {
		t.Run(tt.status, func(t *testing.T) {
			body := edited(t, capture, func(doc jdoc) {
				video := list(t, doc, "incidents")[0]
				step := list(t, video, "timeline")[1] // newest first: this is "investigating"
				list(t, step, "componentsAffected")[0]["status"] = tt.status
			})
			res, _, err := ddRead(t, reply{body: body})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Incidents) == 0 || res.Incidents[0].Headline != "Degraded video generation API" {
				t.Fatalf("incidents %+v", res.Incidents)
			}
			if got := res.Incidents[0].Severity; got != tt.want {
				t.Errorf("severity %q, want %q", got, tt.want)
			}
		})
	}
}

// TestDatadogMaintenances: the real page's maintenances member is null; a
// page with scheduled maintenances (same shape as an incident, on an API
// component) must not turn them into incidents.
func TestDatadogMaintenances(t *testing.T) {
	t.Parallel()
	body := edited(t, "datadog-openrouter-20260915.json", func(doc jdoc) {
		m := jdoc{}
		for k, v := range list(t, doc, "incidents")[0] {
			m[k] = v
		}
		m["id"], m["title"] = "0d5e3c1a-0000-4000-8000-000000000001", "Scheduled maintenance of the chat API"
		doc["maintenances"] = []any{m}
	})
	res, _, err := ddRead(t, reply{body: body})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Incidents) != 2 {
		t.Errorf("%d incidents, want the 2 real ones: %+v", len(res.Incidents), res.Incidents)
	}
	for _, inc := range res.Incidents {
		if inc.Headline == "Scheduled maintenance of the chat API" {
			t.Errorf("a maintenance became an incident: %+v", inc)
		}
	}
}

func TestDatadogNotAConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body string
		want api.FailureKind
	}{
		{`{}`, api.FailureSchema},
		{`{"components":null,"incidents":[]}`, api.FailureSchema},
		{`{"components":[]}`, api.FailureEmpty},
		{`{"components":[{"type":"ComponentGroup","id":"g","name":"API - Gateway","components":[]}]}`, api.FailureEmpty},
		{`{"components":[{"type":"Component","id":"w","name":"Web & Application Services","status":"operational"}]}`, api.FailureScope},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			res, _, err := ddRead(t, reply{body: []byte(tt.body)})
			checkOutcome(t, res, err, "", tt.want)
		})
	}
}

// FuzzDatadog feeds arbitrary config.json documents through the parser:
// never a panic, always a valid status and incidents that render.
func FuzzDatadog(f *testing.F) {
	f.Add(fixture(f, "real/datadog-openrouter-20260915.json"))
	f.Add([]byte(`{"components":[{"type":"ComponentGroup","id":"g","name":"API - Gateway","components":[{"type":"Component","id":"c","name":"Chat","status":"major_outage"}]}],"incidents":[{"id":"i","title":"t","publishedDate":"9999-12-31T23:59:59-01:00","resolved":true,"timeline":[{"startedAt":"2026-01-01T00:00:00Z","componentsAffected":[{"id":"c","status":"degraded"}]}]}]}`))
	f.Add([]byte(`{"components":[]}`))
	f.Add([]byte(`null`))
	plain := catalog.Service{Slug: "openrouter", StatusPage: "https://status.openrouter.ai"}
	scoped := plain
	scoped.Feed.Scope = catalog.Scope{ComponentNames: []string{"API - Gateway"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, svc := range []catalog.Service{plain, scoped} {
			res, err := parseDatadog(data, Request{Service: svc})
			checkParsed(t, svc, res, err)
		}
	})
}
