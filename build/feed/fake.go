package feed

// The fake pages of Formats: for each format, the smallest page that
// declares a given state, written in the format's own vocabulary so that
// reading it back is the adapter's real translation. The loopback world of
// the tests (build/buildtest) serves them, and TestFormats reads every
// state of Format.Declares back.

import (
	"encoding/json"
	"fmt"
	"html"
	"strconv"
	"time"

	"github.com/aistatus/aistatus/api"
	"golang.org/x/text/encoding/unicode"
)

// FakePage is what a fake status page declares.
type FakePage struct {
	Slug   string
	Status api.Status
	// Incidents are listed by the formats whose incidents the fake writes
	// with ids (statuspage, incidentio); the others express Status alone.
	Incidents []FakeIncident
	// List asks for the list of incidents (feed.incidentsUrl) instead of
	// the main document (feed.url).
	List bool
	// Now dates what the page publishes ("10 minutes ago").
	Now time.Time
}

// FakeIncident is one incident of a fake page.
type FakeIncident struct {
	ID, Name   string
	Severity   api.Severity
	StartedAt  time.Time
	ResolvedAt *time.Time
}

// scripted is when the incident that a fake page's state implies began.
func (p FakePage) scripted() time.Time { return p.Now.UTC().Add(-10 * time.Minute) }

// pick returns the word for a status, in the order operational, degraded,
// partial outage, major outage, maintenance.
func pick(s api.Status, words ...string) string {
	i := map[api.Status]int{api.Operational: 0, api.Degraded: 1, api.PartialOutage: 2, api.MajorOutage: 3, api.Maintenance: 4}[s]
	return words[i]
}

func jsonBody(v any) ([]byte, string) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data, "application/json"
}

// fakeStatuspage is the summary, or the incidents list, of a Statuspage
// (or incident.io's compatible) page. The summary lists only the incidents
// that are not resolved, as the real one does.
func fakeStatuspage(p FakePage) ([]byte, string) {
	incidents := []map[string]any{}
	for _, inc := range p.Incidents {
		if !p.List && inc.ResolvedAt != nil {
			continue
		}
		status := "investigating"
		if inc.ResolvedAt != nil {
			status = "resolved"
		}
		incidents = append(incidents, map[string]any{
			"id": inc.ID, "name": inc.Name, "status": status, "impact": string(inc.Severity),
			"created_at": inc.StartedAt, "started_at": inc.StartedAt, "updated_at": inc.StartedAt,
			"resolved_at": inc.ResolvedAt, "shortlink": "https://stspg.io/" + inc.ID,
		})
	}
	doc := map[string]any{
		"page":      map[string]any{"id": p.Slug, "name": p.Slug, "url": "https://status.example/" + p.Slug},
		"incidents": incidents,
	}
	if !p.List {
		doc["status"] = map[string]any{"indicator": pick(p.Status, "none", "minor", "major", "critical", "maintenance")}
		doc["components"] = []map[string]any{{"id": p.Slug + "-api", "name": "API", "group": false,
			"status": pick(p.Status, "operational", "degraded_performance", "partial_outage", "major_outage", "under_maintenance")}}
	}
	return jsonBody(doc)
}

func fakeInstatus(p FakePage) ([]byte, string) {
	return jsonBody(map[string]any{
		"page":            map[string]any{"name": p.Slug, "url": "https://status.example/" + p.Slug, "status": pick(p.Status, "UP", "HASISSUES", "PARTIALOUTAGE", "MAJOROUTAGE", "UNDERMAINTENANCE")},
		"activeIncidents": []any{},
	})
}

// fakeBetterStack expresses a partial outage as one of two resources down.
func fakeBetterStack(p FakePage) ([]byte, string) {
	state := pick(p.Status, "operational", "degraded", "downtime", "downtime", "maintenance")
	other := state
	if p.Status == api.PartialOutage {
		other = "operational"
	}
	resource := func(id, name, status string) map[string]any {
		return map[string]any{"id": id, "type": "status_page_resource", "attributes": map[string]any{"public_name": name, "status": status, "availability": 0.999}}
	}
	return jsonBody(map[string]any{
		"data":     map[string]any{"id": "1", "type": "status_page", "attributes": map[string]any{"aggregate_state": state}},
		"included": []any{resource("1", "API", state), resource("2", "Dashboard", other)},
	})
}

func fakeCheckly(p FakePage) ([]byte, string) {
	incidents := []any{}
	if p.Status != api.Operational {
		incidents = append(incidents, map[string]any{
			"id": p.Slug + "-1", "name": "Scripted incident", "created_at": p.scripted().Format(time.RFC3339),
			"severity": pick(p.Status, "", "MINOR", "MEDIUM", "MAJOR", "MAINTENANCE"), "lastUpdateStatus": "INVESTIGATING",
			"services": []any{}, "incidentUpdates": []any{},
		})
	}
	return jsonBody(map[string]any{"incidents": incidents})
}

func fakeGoogleCloud(p FakePage) ([]byte, string) {
	incidents := []any{}
	if impact := pick(p.Status, "", "SERVICE_INFORMATION", "SERVICE_DISRUPTION", "SERVICE_OUTAGE", ""); impact != "" {
		at := p.scripted().Format(time.RFC3339)
		incidents = append(incidents, map[string]any{
			"id": "gc1", "external_desc": "Scripted incident", "begin": at, "modified": at,
			"severity": "medium", "status_impact": impact, "uri": "incidents/gc1",
			"affected_products": []any{map[string]any{"title": "Gemini API", "id": "gemini"}},
		})
	}
	return jsonBody(incidents)
}

// fakeAWSHealth is UTF-16BE with a byte-order mark, as AWS serves it. A
// disruption in one region is a partial outage; in three, a major one.
func fakeAWSHealth(p FakePage) ([]byte, string) {
	events := []any{}
	regions := map[api.Status]int{api.Degraded: 1, api.PartialOutage: 1, api.MajorOutage: 3}[p.Status]
	code := "3"
	if p.Status == api.Degraded {
		code = "2"
	}
	for i, region := range []string{"us-east-1", "us-west-2", "eu-west-1"}[:regions] {
		events = append(events, map[string]any{
			"date": strconv.FormatInt(p.scripted().Unix(), 10), "region": region, "region_name": region,
			"status": code, "service": "bedrock-" + region, "service_name": "Amazon Bedrock (" + region + ")",
			"summary": "Increased error rates", "arn": fmt.Sprintf("arn:aws:health:%s::event/BEDROCK/%d", region, i), "event_log": []any{},
		})
	}
	data, _ := jsonBody(events)
	utf16, err := unicode.UTF16(unicode.BigEndian, unicode.UseBOM).NewEncoder().Bytes(data)
	if err != nil {
		panic(err)
	}
	return utf16, "application/json"
}

// fakeRSS is an empty channel when all is well, as Azure's feed is.
func fakeRSS(p FakePage) ([]byte, string) {
	item := ""
	if title := pick(p.Status, "", "Degraded performance in API", "Outage affecting API", "Outage affecting API", "Scheduled maintenance of API"); title != "" {
		item = fmt.Sprintf("<item><title>%s</title><guid>%s-1</guid><link>https://status.example/%s</link><pubDate>%s</pubDate><description>%s</description></item>",
			title, p.Slug, p.Slug, p.scripted().Format(time.RFC1123Z), title)
	}
	return []byte(`<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>` + p.Slug + `</title>` + item + `</channel></rss>`), "application/rss+xml"
}

func fakeFlashduty(p FakePage) ([]byte, string) {
	return jsonBody(map[string]any{"overall_status": string(p.Status), "components": []any{map[string]any{"name": "API", "status": string(p.Status)}}})
}

func fakeDatadog(p FakePage) ([]byte, string) {
	return jsonBody(map[string]any{
		"components": []any{map[string]any{"type": "ComponentGroup", "id": "g", "name": "API - Gateway", "components": []any{
			map[string]any{"type": "Component", "id": p.Slug + "-chat", "name": "Chat", "status": pick(p.Status, "operational", "degraded", "partial_outage", "major_outage", "maintenance")},
		}}},
		"incidents": []any{},
	})
}

func fakeHTML(p FakePage) ([]byte, string) {
	banner := pick(p.Status, "All systems operational", "Degraded performance", "Partial outage", "Major outage", "Under maintenance")
	return []byte("<!DOCTYPE html><html><body><main><h2>" + html.EscapeString(banner) + "</h2></main></body></html>"), "text/html; charset=utf-8"
}
