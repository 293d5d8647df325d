package buildtest

import (
	"encoding/json"
	"fmt"
	"html"
	"strconv"
	"time"

	"github.com/aistatus/aistatus/snapshot"
	"golang.org/x/text/encoding/unicode"
)

// render writes a page in a feed format: the main document (summary) or the
// list of incidents. Each renderer uses the format's own vocabulary, so the
// adapter under test does the real translation back.
func render(format snapshot.FeedFormat, slug string, p Page, summary bool, now time.Time) ([]byte, string) {
	scripted := now.UTC().Add(-10 * time.Minute)
	scriptedStart := func() string { return scripted.Format(time.RFC3339) }
	switch format {
	case snapshot.FormatStatuspage, snapshot.FormatIncidentIO:
		return jsonBody(statuspageDoc(slug, p, summary))
	case snapshot.FormatInstatus:
		return jsonBody(map[string]any{
			"page":            map[string]any{"name": slug, "url": "https://status.example/" + slug, "status": pick(p.Status, "UP", "HASISSUES", "PARTIALOUTAGE", "MAJOROUTAGE", "UNDERMAINTENANCE")},
			"activeIncidents": []any{},
		})
	case snapshot.FormatBetterStack:
		return jsonBody(betterStackDoc(p.Status))
	case snapshot.FormatCheckly:
		incidents := []any{}
		if p.Status != snapshot.Operational {
			incidents = append(incidents, map[string]any{
				"id": slug + "-1", "name": "Scripted incident", "created_at": scriptedStart(),
				"severity": pick(p.Status, "", "MINOR", "MEDIUM", "MAJOR", "MAINTENANCE"), "lastUpdateStatus": "INVESTIGATING",
				"services": []any{}, "incidentUpdates": []any{},
			})
		}
		return jsonBody(map[string]any{"incidents": incidents})
	case snapshot.FormatGoogleCloud:
		incidents := []any{}
		if impact := pick(p.Status, "", "SERVICE_INFORMATION", "SERVICE_DISRUPTION", "SERVICE_OUTAGE", ""); impact != "" {
			incidents = append(incidents, map[string]any{
				"id": "gc1", "external_desc": "Scripted incident", "begin": scriptedStart(), "modified": scriptedStart(),
				"severity": "medium", "status_impact": impact, "uri": "incidents/gc1",
				"affected_products": []any{map[string]any{"title": "Gemini API", "id": "gemini"}},
			})
		}
		return jsonBody(incidents)
	case snapshot.FormatAWSHealth:
		return awsHealthDoc(p.Status, scripted)
	case snapshot.FormatRSS:
		return rssDoc(slug, p.Status, scripted), "application/rss+xml"
	case snapshot.FormatFlashduty:
		return jsonBody(map[string]any{"overall_status": string(p.Status), "components": []any{map[string]any{"name": "API", "status": string(p.Status)}}})
	case snapshot.FormatDatadog:
		return jsonBody(map[string]any{
			"components": []any{map[string]any{"type": "ComponentGroup", "id": "g", "name": "API - Gateway", "components": []any{
				map[string]any{"type": "Component", "id": slug + "-chat", "name": "Chat", "status": pick(p.Status, "operational", "degraded", "partial_outage", "major_outage", "maintenance")},
			}}},
			"incidents": []any{},
		})
	case snapshot.FormatHTML:
		banner := pick(p.Status, "All systems operational", "Degraded performance", "Partial outage", "Major outage", "Under maintenance")
		return []byte("<!DOCTYPE html><html><body><main><h2>" + html.EscapeString(banner) + "</h2></main></body></html>"), "text/html; charset=utf-8"
	}
	return []byte("{}"), "application/json"
}

// pick returns the word for a status, in the order operational, degraded,
// partial outage, major outage, maintenance.
func pick(s snapshot.Status, words ...string) string {
	i := map[snapshot.Status]int{snapshot.Operational: 0, snapshot.Degraded: 1, snapshot.PartialOutage: 2, snapshot.MajorOutage: 3, snapshot.Maintenance: 4}[s]
	return words[i]
}

func jsonBody(v any) ([]byte, string) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data, "application/json"
}

func statuspageDoc(slug string, p Page, summary bool) map[string]any {
	incidents := []map[string]any{}
	for _, inc := range p.Incidents {
		if summary && inc.ResolvedAt != nil {
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
		"page":      map[string]any{"id": slug, "name": slug, "url": "https://status.example/" + slug},
		"incidents": incidents,
	}
	if summary {
		doc["status"] = map[string]any{"indicator": pick(p.Status, "none", "minor", "major", "critical", "maintenance")}
		doc["components"] = []map[string]any{{"id": slug + "-api", "name": "API", "group": false,
			"status": pick(p.Status, "operational", "degraded_performance", "partial_outage", "major_outage", "under_maintenance")}}
	}
	return doc
}

// betterStackDoc expresses a partial outage as one of two resources down.
func betterStackDoc(s snapshot.Status) map[string]any {
	state := pick(s, "operational", "degraded", "downtime", "downtime", "maintenance")
	other := state
	if s == snapshot.PartialOutage {
		other = "operational"
	}
	resource := func(id, name, status string) map[string]any {
		return map[string]any{"id": id, "type": "status_page_resource", "attributes": map[string]any{"public_name": name, "status": status, "availability": 0.999}}
	}
	return map[string]any{
		"data":     map[string]any{"id": "1", "type": "status_page", "attributes": map[string]any{"aggregate_state": state}},
		"included": []any{resource("1", "API", state), resource("2", "Dashboard", other)},
	}
}

// awsHealthDoc is UTF-16BE with a byte-order mark, as AWS serves it. A
// disruption in one region is a partial outage; in three, a major one.
func awsHealthDoc(s snapshot.Status, at time.Time) ([]byte, string) {
	events := []any{}
	regions := map[snapshot.Status]int{snapshot.Degraded: 1, snapshot.PartialOutage: 1, snapshot.MajorOutage: 3}[s]
	code := "3"
	if s == snapshot.Degraded {
		code = "2"
	}
	for i, region := range []string{"us-east-1", "us-west-2", "eu-west-1"}[:regions] {
		events = append(events, map[string]any{
			"date": strconv.FormatInt(at.Unix(), 10), "region": region, "region_name": region,
			"status": code, "service": "bedrock-" + region, "service_name": "Amazon Bedrock (" + region + ")",
			"summary": "Increased error rates", "arn": fmt.Sprintf("arn:aws:health:%s::event/BEDROCK/%d", region, i), "event_log": []any{},
		})
	}
	data, _ := json.Marshal(events)
	utf16, err := unicode.UTF16(unicode.BigEndian, unicode.UseBOM).NewEncoder().Bytes(data)
	if err != nil {
		panic(err)
	}
	return utf16, "application/json"
}

// rssDoc is an empty channel when all is well, as Azure's feed is.
func rssDoc(slug string, s snapshot.Status, at time.Time) []byte {
	item := ""
	if title := pick(s, "", "Degraded performance in API", "Outage affecting API", "Outage affecting API", "Scheduled maintenance of API"); title != "" {
		item = fmt.Sprintf("<item><title>%s</title><guid>%s-1</guid><link>https://status.example/%s</link><pubDate>%s</pubDate><description>%s</description></item>",
			title, slug, slug, at.Format(time.RFC1123Z), title)
	}
	return []byte(`<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>` + slug + `</title>` + item + `</channel></rss>`)
}
