package feed

import "github.com/aistatus/aistatus/snapshot"

// Format is one feed format a catalog may name, with what the rest of the
// program needs to know about it.
type Format struct {
	// ID is the format's name in a catalog and in the API (a value of the
	// OpenAPI FeedFormat enum).
	ID snapshot.FeedFormat
	// Name is the format as people know it, for the status page ("the
	// official Instatus feed was read").
	Name string
	// Adapter reads the format; nil for FormatNone alone, which has no feed.
	Adapter Adapter
}

// Formats is the one list of the feed formats, in the order of
// snapshot.FeedFormats and of the OpenAPI FeedFormat enum (TestFormats ties
// both lists to it). The adapter registry and the status page's names are
// read from it. The slice is fresh on every call.
func Formats() []Format {
	return []Format{
		{ID: snapshot.FormatStatuspage, Name: "Atlassian Statuspage", Adapter: statuspage{format: snapshot.FormatStatuspage}},
		{ID: snapshot.FormatIncidentIO, Name: "incident.io", Adapter: statuspage{format: snapshot.FormatIncidentIO}},
		{ID: snapshot.FormatInstatus, Name: "Instatus", Adapter: instatus{}},
		{ID: snapshot.FormatBetterStack, Name: "Better Stack", Adapter: betterStack{}},
		{ID: snapshot.FormatCheckly, Name: "Checkly", Adapter: checkly{}},
		{ID: snapshot.FormatGoogleCloud, Name: "Google Cloud status", Adapter: googleCloud{}},
		{ID: snapshot.FormatAWSHealth, Name: "AWS Health", Adapter: awsHealth{}},
		{ID: snapshot.FormatRSS, Name: "RSS", Adapter: rss{}},
		{ID: snapshot.FormatFlashduty, Name: "Flashduty", Adapter: flashduty{}},
		{ID: snapshot.FormatHTML, Name: "HTML page", Adapter: htmlPage{}},
		{ID: snapshot.FormatDatadog, Name: "Datadog status page", Adapter: datadog{}},
		{ID: snapshot.FormatNone, Name: "no feed (probe only)"},
	}
}

// Lookup returns the row of Formats for id, and false for an id that is
// not a format.
func Lookup(id snapshot.FeedFormat) (Format, bool) {
	for _, f := range Formats() {
		if f.ID == id {
			return f, true
		}
	}
	return Format{}, false
}

// Adapters returns the registry of the formats that have a reader (every
// one but FormatNone), from Formats. The map is fresh on every call, so a
// caller may change it without affecting anyone else.
func Adapters() map[snapshot.FeedFormat]Adapter {
	out := map[snapshot.FeedFormat]Adapter{}
	for _, f := range Formats() {
		if f.Adapter != nil {
			out[f.ID] = f.Adapter
		}
	}
	return out
}
