package feed

import (
	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// Format is one feed format a catalog may name, with what the rest of the
// program needs to know about it.
type Format struct {
	// ID is the format's name in a catalog and in the API (a value of the
	// OpenAPI FeedFormat enum).
	ID catalog.FeedFormat
	// Name is the format as people know it, for the status page ("the
	// official Instatus feed was read").
	Name string
	// Adapter reads the format; nil for FormatNone alone, which has no feed.
	Adapter Adapter
	// Declares are the states a page in the format can declare, which the
	// adapter reads back from the fake page of each.
	Declares []api.Status
	// Fake writes the smallest page in the format that declares p.Status
	// (fake.go), for the loopback world of the tests: the body and its
	// content type. Nil for FormatNone.
	Fake func(p FakePage) (body []byte, contentType string)
}

// Formats is the one list of the feed formats, in the order of
// catalog.FeedFormats and of the OpenAPI FeedFormat enum (TestFormats ties
// both lists to it). The adapter registry and the status page's names are
// read from it, and the tests' fake world writes its pages with it. The
// slice is fresh on every call.
func Formats() []Format {
	every := []api.Status{api.Operational, api.Degraded, api.PartialOutage, api.MajorOutage, api.Maintenance}
	// Google Cloud's incidents and AWS's events carry no maintenance; an
	// RSS item's words say an outage, never how much of the service is out.
	noMaintenance := []api.Status{api.Operational, api.Degraded, api.PartialOutage, api.MajorOutage}
	noMajor := []api.Status{api.Operational, api.Degraded, api.PartialOutage, api.Maintenance}
	return []Format{
		{catalog.FormatStatuspage, "Atlassian Statuspage", statuspage{format: catalog.FormatStatuspage}, every, fakeStatuspage},
		{catalog.FormatIncidentIO, "incident.io", statuspage{format: catalog.FormatIncidentIO}, every, fakeStatuspage},
		{catalog.FormatInstatus, "Instatus", instatus{}, every, fakeInstatus},
		{catalog.FormatBetterStack, "Better Stack", betterStack{}, every, fakeBetterStack},
		{catalog.FormatCheckly, "Checkly", checkly{}, every, fakeCheckly},
		{catalog.FormatGoogleCloud, "Google Cloud status", googleCloud{}, noMaintenance, fakeGoogleCloud},
		{catalog.FormatAWSHealth, "AWS Health", awsHealth{}, noMaintenance, fakeAWSHealth},
		{catalog.FormatRSS, "RSS", rss{}, noMajor, fakeRSS},
		{catalog.FormatFlashduty, "Flashduty", flashduty{}, every, fakeFlashduty},
		{catalog.FormatHTML, "HTML page", htmlPage{}, every, fakeHTML},
		{catalog.FormatDatadog, "Datadog status page", datadog{}, every, fakeDatadog},
		{ID: catalog.FormatNone, Name: "no feed (probe only)"},
	}
}

// Lookup returns the row of Formats for id, and false for an id that is
// not a format.
func Lookup(id catalog.FeedFormat) (Format, bool) {
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
func Adapters() map[catalog.FeedFormat]Adapter {
	out := map[catalog.FeedFormat]Adapter{}
	for _, f := range Formats() {
		if f.Adapter != nil {
			out[f.ID] = f.Adapter
		}
	}
	return out
}
