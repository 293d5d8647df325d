package site

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// llmsPage is the data of llms.txt (https://llmstxt.org): a Markdown summary
// of the site for language models and the agents that use them.
type llmsPage struct {
	Base       string
	Services   []*service
	Names      string
	Generated  time.Time
	StaleAfter int
	// Since is a sample date for the incidents example: a week back.
	Since string
}

func (m *model) llms() llmsPage {
	p := llmsPage{
		Base: m.base, Services: m.services, Generated: m.now,
		StaleAfter: m.docs.Manifest.StaleAfterSeconds,
		Since:      m.now.AddDate(0, 0, -7).Format(time.DateOnly),
	}
	for i, svc := range m.services[:min(len(m.services), 5)] {
		if i > 0 {
			p.Names += ", "
		}
		p.Names += svc.Name
	}
	return p
}

// MCPPath is where the site's MCP (Model Context Protocol) endpoint lives.
const MCPPath = snapshot.PathMCP

// link is a target object of an RFC 9264 linkset.
type link struct {
	Href  string `json:"href"`
	Type  string `json:"type,omitempty"`
	Title string `json:"title,omitempty"`
}

// apiCatalog is /.well-known/api-catalog (RFC 9727): a linkset
// (application/linkset+json) that points API clients to the API, its
// OpenAPI description, its documentation and its licence, and to the MCP
// endpoint as a second API.
func apiCatalog(base string) ([]byte, error) {
	license := []link{{Href: api.LicenseURL, Title: api.License}}
	doc := map[string]any{
		// The profile is said in the document as well as in its Content-Type,
		// which a static host or a download may lose.
		"linkset-metadata": []map[string]string{{"profile": snapshot.ProfileAPICatalog}},
		"linkset": []map[string]any{
			{
				"anchor":       base + snapshot.APIBase,
				"service-desc": []link{{Href: base + snapshot.PathOpenAPI, Type: "application/vnd.oai.openapi+json;version=3.0"}},
				"service-doc":  []link{{Href: base + "/", Type: "text/html"}},
				"service-meta": []link{{Href: base + "/" + FileLLMs, Type: "text/plain"}},
				"license":      license,
				// The incident feeds, the CSV export, the metrics and the
				// maintenance calendar: the same data, other forms.
				"alternate": []link{
					{Href: base + "/" + FileFeed, Type: snapshot.ContentAtom, Title: "Incidents (Atom)"},
					{Href: base + "/" + FileJSONFeed, Type: snapshot.ContentJSONFeed, Title: "Incidents (JSON Feed)"},
					{Href: base + snapshot.PathMetrics, Type: snapshot.ContentMetrics, Title: "Status, uptime and latency (Prometheus metrics)"},
					{Href: base + "/" + FileCalendar, Type: "text/calendar", Title: "Maintenance windows (iCalendar)"},
					{Href: base + snapshot.PathExport + "?format=csv", Type: "text/csv", Title: "All services (CSV)"},
				},
				// The open dataset: monthly files of daily uptime and incidents.
				"describedby": []link{{Href: base + "/" + snapshot.FileDatasets, Type: snapshot.ContentJSON, Title: "Open dataset: monthly files (CC-BY-4.0)"}},
			},
			{
				// The MCP endpoint has no description document of its own: its
				// tools describe themselves over the protocol.
				"anchor":      base + MCPPath,
				"service-doc": []link{{Href: base + "/" + FileLLMs, Type: "text/plain"}},
				"license":     license,
			},
		},
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", FileAPICatalog, err)
	}
	return append(data, '\n'), nil
}
