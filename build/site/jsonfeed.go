package site

import (
	"encoding/json"
	"fmt"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// JSON Feed 1.1 (https://jsonfeed.org/version/1.1) twins of the Atom feeds:
// the same entries, ids and texts, for readers and bots that take JSON.

// FileJSONFeed is the JSON Feed twin of FileFeed.
const FileJSONFeed = "incidents" + snapshot.JSONFeedSuffix

// ServiceJSONFeed is the path of a service's JSON Feed in the snapshot.
func ServiceJSONFeed(slug string) string {
	return snapshot.DirServices + "/" + slug + snapshot.JSONFeedSuffix
}

type jsonFeed struct {
	Version     string           `json:"version"`
	Title       string           `json:"title"`
	HomePageURL string           `json:"home_page_url"`
	FeedURL     string           `json:"feed_url"`
	Description string           `json:"description"`
	Authors     []jsonFeedAuthor `json:"authors"`
	Language    string           `json:"language"`
	Items       []jsonFeedItem   `json:"items"`
}

type jsonFeedAuthor struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

type jsonFeedItem struct {
	// ID is the Atom entry's id, so a reader following both sees one item.
	ID            string   `json:"id"`
	URL           string   `json:"url"`
	ExternalURL   string   `json:"external_url,omitempty"`
	Title         string   `json:"title"`
	ContentText   string   `json:"content_text"`
	DatePublished string   `json:"date_published"`
	DateModified  string   `json:"date_modified"`
	Tags          []string `json:"tags"`
}

// incidentsJSONFeed is the JSON Feed of every service's incidents, the
// newest FeedEntriesMax, as incidents.atom.
func (m *model) incidentsJSONFeed() ([]byte, error) {
	newest, on := m.withSurfaceIncidents(m.services, m.docs.Incidents.Incidents, FeedEntriesMax)
	return m.jsonFeed(FileJSONFeed, "aistatus: incidents of AI services", m.base+"/", newest, on)
}

// serviceJSONFeed is the JSON Feed of one service's incidents, the newest
// FeedEntriesMax, as its Atom twin.
func (m *model) serviceJSONFeed(svc *service) ([]byte, error) {
	newest, on := m.withSurfaceIncidents([]*service{svc}, svc.Incidents, FeedEntriesMax)
	return m.jsonFeed(ServiceJSONFeed(svc.Slug), "aistatus: "+svc.Name+" incidents", m.base+"/services/"+svc.Slug, newest, on)
}

// jsonFeed renders incidents as a JSON Feed; on are the surfaces other than
// the API each incident belongs to, as for the Atom feeds.
func (m *model) jsonFeed(path, title, page string, incidents []api.Incident, on map[string][]surfaceView) ([]byte, error) {
	f := jsonFeed{
		Version: "https://jsonfeed.org/version/1.1", Title: title, HomePageURL: page, FeedURL: m.base + "/" + path,
		Description: "Incidents from each service's official status page and aistatus's own probes. " +
			"Data licensed " + api.License + ".",
		Authors:  []jsonFeedAuthor{{Name: "aistatus", URL: m.base + "/"}},
		Language: "en",
		Items:    []jsonFeedItem{},
	}
	for _, inc := range incidents {
		e := m.entry(inc, on[inc.ID]) // the Atom entry: one source for both feeds
		item := jsonFeedItem{
			ID: e.ID, URL: m.base + "/services/" + inc.Service, ExternalURL: inc.URL, Title: e.Title,
			ContentText: e.Summary.Text, DatePublished: e.Published, DateModified: e.Updated,
			Tags: []string{string(inc.Severity), inc.Source},
		}
		for _, sf := range on[inc.ID] {
			item.Tags = append(item.Tags, "surface:"+string(sf.ID))
		}
		f.Items = append(f.Items, item)
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", path, err)
	}
	return append(data, '\n'), nil
}
