package site

import (
	"cmp"
	htmltemplate "html/template"
	"slices"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
)

// categoryTitles are the human titles of catalog.Categories.
var categoryTitles = map[string]string{
	"llm-api":          "LLM APIs",
	"cloud-ai":         "Cloud AI platforms",
	"inference":        "Inference platforms",
	"image-video":      "Image and video",
	"audio-speech":     "Audio and speech",
	"vector-db":        "Vector databases",
	"llmops":           "LLMOps",
	"coding-assistant": "Coding assistants",
}

// layout is what every page shares: the head, header, banners and footer.
type layout struct {
	Title       string
	Description string
	// Root is the relative path from the page to the site root ("./" or
	// "../"). Links inside the site are relative, so the pages work under
	// any base path, such as a GitHub Pages project site.
	Root      string
	Base      string
	Canonical string
	Feeds     []feedLink
	Generated time.Time
	// StaleAfter is the staleness threshold in seconds.
	StaleAfter int
	Theme      htmltemplate.CSS
}

type feedLink struct{ Title, Href string }

func (m *model) layout(title, description, root, canonical string, feeds ...feedLink) layout {
	feeds = append(feeds, feedLink{"aistatus: all incidents", m.base + "/" + FileFeed})
	return layout{
		Title: title, Description: description, Root: root, Base: m.base,
		Canonical: canonical, Feeds: feeds, Generated: m.now,
		StaleAfter: m.docs.Manifest.StaleAfterSeconds, Theme: themeCSS(),
	}
}

// overall is the banner at the top of the status page.
type overall struct {
	State    StatusInfo
	Headline string
	// Counts lists how many services are in each status, best first.
	Counts []count
}

type count struct {
	State StatusInfo
	N     int
}

// The headline counts the subjects in trouble, the services' APIs and
// their other surfaces, so that claude.ai down with the Claude API up is
// not "All systems operational"; Counts stay the services' (their APIs').
func (m *model) overall() overall {
	n := map[api.Status]int{}
	worst := api.Unknown
	issues, surfaces := 0, 0
	for _, svc := range m.services {
		n[svc.State.Key]++
		worst = api.Worse(worst, svc.State.Key)
		if svc.State.Issue {
			issues++
		}
		for _, sf := range svc.TroubledSurfaces() {
			surfaces++
			worst = api.Worse(worst, sf.State.Key)
		}
	}
	o := overall{State: Status(worst)}
	for _, s := range api.Statuses {
		if n[s] > 0 {
			o.Counts = append(o.Counts, count{Status(s), n[s]})
		}
	}
	switch {
	case issues > 0 && surfaces > 0:
		o.Headline = plural(issues, "service", "services") + " and " + plural(surfaces, "surface", "surfaces") + " with issues"
	case surfaces > 0:
		o.Headline = plural(surfaces, "surface", "surfaces") + " with issues"
	case issues > 0:
		o.Headline = plural(issues, "service", "services") + " with issues"
	case n[api.Maintenance] > 0:
		o.Headline = "No outages; " + plural(n[api.Maintenance], "service", "services") + " under maintenance"
	case n[api.Operational] == 0:
		o.Headline = "Status unknown: no service could be checked"
	case n[api.Unknown] > 0:
		o.Headline = "All checked systems operational"
	default:
		o.Headline = "All systems operational"
	}
	return o
}

type category struct {
	Key, Title string
	Services   []*service
}

// categories groups the services in the order of catalog.Categories; a
// category the catalog does not know comes last under its own key.
func (m *model) categories() []category {
	var out []category
	index := map[string]int{}
	add := func(key string) {
		title := categoryTitles[key]
		if title == "" {
			title = key
		}
		index[key] = len(out)
		out = append(out, category{Key: key, Title: title})
	}
	for _, key := range catalog.Categories {
		add(key)
	}
	for _, svc := range m.services {
		if _, ok := index[svc.Category]; !ok {
			add(svc.Category)
		}
		i := index[svc.Category]
		out[i].Services = append(out[i].Services, svc)
	}
	return slices.DeleteFunc(out, func(c category) bool { return len(c.Services) == 0 })
}

// incident is one incident as the pages and feeds show it.
type incident struct {
	api.Incident
	ServiceName string
	// Page is the service page, relative to the site root.
	Page     string
	Duration string
}

func (m *model) incident(inc api.Incident) incident {
	v := incident{Incident: inc, ServiceName: m.serviceName(inc.Service), Page: "services/" + inc.Service}
	if inc.EndedAt != nil {
		v.Duration = api.HumanDuration(inc.EndedAt.Sub(inc.StartedAt))
	}
	return v
}

// recentIncidents are those that started within RecentIncidentsWindow or are
// still open (an outage that began earlier is all the more relevant), newest
// first, at most RecentIncidentsMax.
func (m *model) recentIncidents() []incident {
	all := slices.Clone(m.docs.Incidents.Incidents)
	api.SortIncidents(all)
	var out []incident
	for _, inc := range all {
		if len(out) == RecentIncidentsMax {
			break
		}
		if inc.Open() || m.now.Sub(inc.StartedAt) <= RecentIncidentsWindow {
			out = append(out, m.incident(inc))
		}
	}
	return out
}

type indexPage struct {
	layout
	Overall overall
	// Affected are the services with issues now, worst first, and Ongoing
	// the open incidents: what is wrong now leads the page.
	Affected []*service
	// AffectedSurfaces are the services with a surface other than the
	// API in trouble (claude.ai down while the API is up).
	AffectedSurfaces []*service
	Ongoing          []incident
	Categories       []category
	Incidents        []incident
	// Unread are the services whose official page is not being read.
	Unread []unreadSource
	// Models are the watched models some source reports on.
	Models   modelsSection
	Services int
	// RecentDays is the incident window in days, for the heading.
	RecentDays int
}

func (m *model) index() indexPage {
	return indexPage{
		layout: m.layout("aistatus: are AI services up?",
			"Live status, 30-day uptime and incidents of "+plural(len(m.services), "AI service", "AI services")+", from their official status pages and aistatus's own probes.",
			"./", m.base+"/"),
		Overall: m.overall(), Affected: m.affected(), AffectedSurfaces: m.affectedSurfaces(), Ongoing: m.ongoing(),
		Categories: m.categories(), Incidents: m.recentIncidents(), Unread: m.unread(), Models: m.models(),
		Services: len(m.services), RecentDays: int(RecentIncidentsWindow / (24 * time.Hour)),
	}
}

// affected are the services with issues (degraded or worse) and those
// under maintenance, worst first, then in catalog order. Maintenance is no
// outage, but the service is not fully usable: someone deciding whether to
// call it now must see it there, with its own label.
func (m *model) affected() []*service {
	var out []*service
	for _, svc := range m.services {
		if svc.State.Issue || svc.State.Key == api.Maintenance {
			out = append(out, svc)
		}
	}
	slices.SortStableFunc(out, func(a, b *service) int {
		switch {
		case api.Worse(a.State.Key, b.State.Key) == a.State.Key && a.State.Key != b.State.Key:
			return -1
		case a.State.Key != b.State.Key:
			return 1
		}
		return 0
	})
	return out
}

// ongoing are the open incidents, newest first.
func (m *model) ongoing() []incident {
	var out []incident
	for _, inc := range m.docs.Incidents.Incidents {
		if inc.Open() {
			out = append(out, m.incident(inc))
		}
	}
	return out
}

// unreadSource is a service whose official page is not being read, and why.
type unreadSource struct {
	Name, Slug, Why string
}

// unread lists the services whose status does not have their official
// page's word: the page failed to read (since when, and how), or there is
// no page a program can read.
func (m *model) unread() []unreadSource {
	var out []unreadSource
	for _, svc := range m.services {
		f := svc.Sources.Feed
		switch f.State {
		case api.FeedError:
			why := "could not be read"
			if f.Failure != "" {
				why += " (" + strings.ReplaceAll(string(f.Failure), "_", " ") + ")"
			}
			if f.FailingSince != nil {
				why += " for " + api.HumanDuration(m.now.Sub(*f.FailingSince))
			}
			out = append(out, unreadSource{svc.Name, svc.Slug, "Its status page " + why + "."})
		case api.FeedNone:
			out = append(out, unreadSource{svc.Name, svc.Slug, "No page a program can read: our probe alone decides."})
		case api.FeedUnsupported:
			out = append(out, unreadSource{svc.Name, svc.Slug, "Its page's format has no reader in this aistatus: our probe alone decides."})
		}
	}
	return out
}

type servicePage struct {
	layout
	*service
	Incidents []incident
	// MoreIncidents counts the retained incidents past ServiceIncidentsMax.
	MoreIncidents int
	Feed          sourceLine
	Probe         sourceLine
	Badges        []badgeSnippet
	API           string
	// Models are the watched models the service makes.
	Models []modelRow
}

// sourceLine says how one source contributed to the status.
type sourceLine struct{ State, Detail string }

// badgeSnippet shows one badge and the Markdown that embeds it.
type badgeSnippet struct {
	Title string
	// Image is the badge's path from the site root.
	Image string
	// ImgAlt describes the badge as it is now; the Markdown's alt text
	// stays true as the status changes.
	ImgAlt   string
	Width    int
	Markdown string
}

func (m *model) servicePage(svc *service) servicePage {
	p := servicePage{
		layout: m.layout(svc.Name+" status: aistatus",
			"Is "+svc.Name+" up? Current status, 30-day uptime and incidents of "+svc.Name+".",
			"../", m.base+"/services/"+svc.Slug,
			feedLink{"aistatus: " + svc.Name + " incidents", m.base + "/" + ServiceFeed(svc.Slug)}),
		service: svc,
		Feed:    feedLine(svc.Sources.Feed),
		Probe:   probeLine(svc.Sources.Probe),
		API:     m.base + strings.ReplaceAll(snapshot.PathService, snapshot.SlugParam, svc.Slug),
		Models:  m.modelsOf(svc.Slug),
	}
	for _, inc := range svc.Incidents[:min(len(svc.Incidents), ServiceIncidentsMax)] {
		p.Incidents = append(p.Incidents, m.incident(inc))
	}
	p.MoreIncidents = len(svc.Incidents) - len(p.Incidents)
	page := m.base + "/services/" + svc.Slug
	type badgeRow struct {
		title, kind string
		badge       badge
	}
	badges := []badgeRow{{"Status", "", statusBadge(svc)}, {"30-day uptime", "-uptime", uptimeBadge(svc)}}
	for _, sf := range svc.others() {
		badges = append(badges, badgeRow{sf.Name + " status", surfaceKind(sf.ID), surfaceBadge(svc, sf)})
	}
	for _, b := range badges {
		img := m.base + "/" + BadgeFile(svc.Slug, b.kind, "svg")
		endpoint := m.base + "/" + BadgeFile(svc.Slug, b.kind, "json")
		alt := svc.Name + " " + strings.ToLower(b.title)
		_, _, width := b.badge.widths()
		p.Badges = append(p.Badges, badgeSnippet{
			Title: b.title, Image: BadgeFile(svc.Slug, b.kind, "svg"),
			ImgAlt: b.badge.Label + ": " + b.badge.Message, Width: width,
			Markdown: "[![" + alt + "](" + img + ")](" + page + ")\n" +
				"[![" + alt + "](https://img.shields.io/endpoint?url=" + endpoint + ")](" + page + ")",
		})
	}
	return p
}

func feedLine(f api.FeedSource) sourceLine {
	format := string(f.Format)
	if row, ok := feed.Lookup(f.Format); ok {
		format = row.Name
	}
	switch f.State {
	case api.FeedOK:
		declared := "no status"
		if f.Status != "" {
			declared = "“" + f.Status.Label() + "”"
		}
		return sourceLine{"read", "The official " + format + " feed was read; it declared " + declared + "."}
	case api.FeedError:
		detail := "The official " + format + " feed could not be read (" + f.Error + "): its last word stands for up to " +
			itoa(int(history.MaxHold.Minutes())) + " minutes, then the probe decides."
		if f.FailingSince != nil && f.ConsecutiveFailures > 1 {
			detail += " It has failed " + itoa(f.ConsecutiveFailures) + " times in a row, since " + humanTime(*f.FailingSince) + "."
		}
		return sourceLine{"error", detail}
	case api.FeedUnsupported:
		return sourceLine{"not read", "The official feed (" + format + ") is not read yet: aistatus has no reader for this format, so the probe decides."}
	case api.FeedNone:
		return sourceLine{"none", cmp.Or(f.Note, "This service publishes no machine-readable status feed; the probe decides.")}
	}
	return sourceLine{"no data", "No feed has been read yet."}
}

func probeLine(p api.ProbeSource) sourceLine {
	switch p.State {
	case api.ProbeOK:
		detail := "The API host answered"
		if p.HTTPStatus != 0 {
			detail += " with HTTP " + itoa(p.HTTPStatus)
		}
		if p.LatencyMs != nil {
			detail += " in " + itoa(int(*p.LatencyMs+0.5)) + " ms"
		}
		return sourceLine{"answered", detail + " (any answer, even 401, means the host is up, not that the API works: the probe sends no credentials)."}
	case api.ProbeFailed:
		return sourceLine{"failed", "The API host did not answer: " + p.Error + "."}
	case api.ProbeNone:
		return sourceLine{"none", "This service has no generic API host to probe."}
	case api.ProbeDiscarded:
		return sourceLine{"discarded", "The probe failed together with most others at once: a problem on aistatus's side, recorded as no data."}
	}
	return sourceLine{"no data", "No probe has run yet."}
}
