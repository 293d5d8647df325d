package site

import (
	"encoding/xml"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
)

// Atom 1.0 (RFC 4287) documents, as encoding/xml writes them.
type atomFeed struct {
	XMLName xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string      `xml:"id"`
	Title   string      `xml:"title"`
	Updated string      `xml:"updated"`
	Links   []atomLink  `xml:"link"`
	Author  atomPerson  `xml:"author"`
	Rights  string      `xml:"rights"`
	Gen     string      `xml:"generator,omitempty"`
	Entries []atomEntry `xml:"entry"`
}

type atomLink struct {
	Rel  string `xml:"rel,attr"`
	Type string `xml:"type,attr,omitempty"`
	Href string `xml:"href,attr"`
}

type atomPerson struct {
	Name string `xml:"name"`
	URI  string `xml:"uri,omitempty"`
}

type atomEntry struct {
	ID        string         `xml:"id"`
	Title     string         `xml:"title"`
	Updated   string         `xml:"updated"`
	Published string         `xml:"published"`
	Links     []atomLink     `xml:"link"`
	Category  []atomCategory `xml:"category"`
	Summary   atomText       `xml:"summary"`
}

type atomCategory struct {
	Term string `xml:"term,attr"`
}

type atomText struct {
	Type string `xml:"type,attr"`
	Text string `xml:",chardata"`
}

// incidentsFeed is the Atom feed of every service's incidents, the newest
// FeedEntriesMax.
func (m *model) incidentsFeed() ([]byte, error) {
	newest, on := m.withSurfaceIncidents(m.services, m.docs.Incidents.Incidents, FeedEntriesMax)
	return m.feed(FileFeed, m.base+"/"+FileFeed, "aistatus: incidents of AI services", m.base+"/", newest, on)
}

// serviceFeed is the Atom feed of one service's incidents, the newest
// FeedEntriesMax (a service document lists them newest first).
func (m *model) serviceFeed(svc *service) ([]byte, error) {
	newest, on := m.withSurfaceIncidents([]*service{svc}, svc.Incidents, FeedEntriesMax)
	return m.feed(ServiceFeed(svc.Slug), m.base+"/"+ServiceFeed(svc.Slug), "aistatus: "+svc.Name+" incidents",
		m.base+"/services/"+svc.Slug, newest, on)
}

// incidentID is an incident's Atom id: an address under the site's base
// URL (its service's page, the incident's id as the fragment), so that two
// instances — which may hold incidents of the same id, probe incidents
// above all — never give two readers' entries one id, as the former
// tag:aistatus,2026: ids did. A feed's id is likewise its own address. The
// ids change if the site moves to another base URL: a reader then sees
// the retained entries once more.
func incidentID(base string, inc api.Incident) string {
	return base + "/services/" + url.PathEscape(inc.Service) + "#incident-" + url.PathEscape(inc.ID)
}

// feed renders incidents as an Atom feed published at path. Its updated
// time is the snapshot's: the feed is regenerated every cycle, and an
// incident's own change shows in its entry's updated time. on are the
// surfaces other than the API each incident belongs to.
func (m *model) feed(path, id, title, page string, incidents []api.Incident, on map[string][]surfaceView) ([]byte, error) {
	f := atomFeed{
		ID: id, Title: title, Updated: rfc3339(m.now),
		Links: []atomLink{
			{Rel: "self", Type: "application/atom+xml", Href: m.base + "/" + path},
			{Rel: "alternate", Type: "text/html", Href: page},
		},
		Author: atomPerson{Name: "aistatus", URI: m.base + "/"},
		Rights: api.License,
		Gen:    m.docs.Manifest.Generator,
	}
	for _, inc := range incidents {
		f.Entries = append(f.Entries, m.entry(inc, on[inc.ID]))
	}
	data, err := xml.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", path, err)
	}
	return append(append([]byte(xml.Header), data...), '\n'), nil
}

// entry is one incident of the feed; surfaces are those other than the API
// it belongs to, named in its title and as categories ("surface:app").
func (m *model) entry(inc api.Incident, surfaces []surfaceView) atomEntry {
	v := m.incident(inc)
	servicePage := m.base + "/services/" + inc.Service
	e := atomEntry{
		ID:        incidentID(m.base, inc),
		Title:     "[" + v.ServiceName + "] " + inc.Headline,
		Updated:   rfc3339(inc.UpdatedAt),
		Published: rfc3339(inc.StartedAt),
		Category:  []atomCategory{{Term: string(inc.Severity)}},
	}
	if len(surfaces) > 0 {
		names := make([]string, len(surfaces))
		for i, sf := range surfaces {
			names[i] = sf.Name
			e.Category = append(e.Category, atomCategory{Term: "surface:" + string(sf.ID)})
		}
		e.Title = "[" + v.ServiceName + " · " + strings.Join(names, ", ") + "] " + inc.Headline
	}
	if inc.UpdatedAt.IsZero() {
		e.Updated = e.Published
	}
	if inc.URL != "" {
		e.Links = []atomLink{{Rel: "alternate", Type: "text/html", Href: inc.URL}, {Rel: "related", Type: "text/html", Href: servicePage}}
	} else {
		e.Links = []atomLink{{Rel: "alternate", Type: "text/html", Href: servicePage}}
	}
	e.Summary = atomText{Type: "text", Text: m.incidentSummary(inc)}
	return e
}

// incidentSummary is an incident in one paragraph of plain text, as the
// feeds' entries carry it.
func (m *model) incidentSummary(inc api.Incident) string {
	var s strings.Builder
	fmt.Fprintf(&s, "Severity: %s. Status: %s. Started %s", inc.Severity, inc.Status, humanTime(inc.StartedAt))
	if inc.EndedAt != nil {
		fmt.Fprintf(&s, ", ended %s (%s).", humanTime(*inc.EndedAt), m.incident(inc).Duration)
	} else {
		s.WriteString(", ongoing.")
	}
	if inc.Source == api.SourceProbe {
		s.WriteString(" Detected by aistatus's own probe of the API host, not reported by the service.")
	}
	return s.String()
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }
