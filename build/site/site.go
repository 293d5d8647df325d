// Package site renders everything of a snapshot that is meant for people
// and for discovery beside the JSON API: the status page and one page per
// service, status and uptime badges (SVG and shields.io endpoint JSON),
// Atom feeds of incidents, llms.txt and the RFC 9727 API catalog.
//
// It renders from the same snapshot.Documents as the API files, so a page
// never disagrees with the JSON next to it. Every file is self-contained: no
// script, style sheet, font or image is fetched from anywhere else.
package site

import (
	"bytes"
	"embed"
	"fmt"
	htmltemplate "html/template"
	"math"
	"strconv"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
)

//go:embed templates
var templatesFS embed.FS

// Page and feed windows.
const (
	// RecentIncidentsWindow is how far back the status page lists incidents.
	RecentIncidentsWindow = 14 * 24 * time.Hour
	// RecentIncidentsMax bounds the incidents on the status page.
	RecentIncidentsMax = 20
	// FeedEntriesMax bounds the entries of incidents.atom and of each
	// service's feed, the newest: a feed reader wants what is new, and at
	// full retention a service holds thousands (every one of them rendered,
	// the feeds and pages took most of a build).
	FeedEntriesMax = 50
	// ServiceIncidentsMax bounds the incidents a service's page lists, the
	// newest; the page links the API, which has them all.
	ServiceIncidentsMax = 100
	// ChartDays is the number of daily bars in the uptime charts.
	ChartDays = 30
)

// The paths of the files Render writes, relative to the snapshot folder.
const (
	FileIndex      = "index.html"
	FileLLMs       = "llms.txt"
	FileFeed       = "incidents.atom"
	FileAPICatalog = ".well-known/api-catalog"
)

// ServicePage is the path of a service's HTML page in the snapshot.
func ServicePage(slug string) string { return snapshot.DirServices + "/" + slug + ".html" }

// ServiceFeed is the path of a service's Atom feed in the snapshot.
func ServiceFeed(slug string) string { return snapshot.DirServices + "/" + slug + ".atom" }

// BadgeFile is the path of a badge in the snapshot; kind is "" for the status
// badge (the API's), "-uptime" for the 30-day uptime badge, or "-app",
// "-agent" or "-console" for a surface's status badge; ext "svg" or "json".
func BadgeFile(slug, kind, ext string) string { return "badges/" + slug + kind + "." + ext }

var (
	pageTemplates = htmltemplate.Must(htmltemplate.New("").Funcs(htmltemplate.FuncMap(funcs)).
			ParseFS(templatesFS, "templates/*.html"))
	llmsTemplate = texttemplate.Must(texttemplate.New("llms.txt").Funcs(texttemplate.FuncMap(funcs)).
			ParseFS(templatesFS, "templates/llms.txt"))
)

// funcs are the helpers the templates share.
var funcs = map[string]any{
	"iso":   func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"human": humanTime,
	// ms and pct100 write a measured figure: "412 ms", "1.7%"; "–" for none.
	"ms": func(v *float64) string {
		if v == nil {
			return "–"
		}
		return fmt.Sprintf("%.0f ms", *v)
	},
	"pct100": func(v *float64) string {
		if v == nil {
			return "–"
		}
		return strconv.FormatFloat(math.Round(*v*1000)/10, 'f', -1, 64) + "%"
	},
	"label": api.Status.Label,
	"deref": func(p *float64) float64 { return *p },
	"minutes": func(seconds int) int {
		return int(math.Ceil(float64(seconds) / 60))
	},
}

// Render produces the human and discovery files of a snapshot: path
// (slash-separated, relative to the snapshot folder) → content. h is the
// history the documents were assembled from; the daily uptime bars are
// computed from its hourly buckets. A nil h means no history: every day
// shows "no data".
func Render(docs snapshot.Documents, h *history.History) (map[string][]byte, error) {
	m := newModel(docs, h)
	files := map[string][]byte{}

	var err error
	if files[FileIndex], err = executeHTML("index.html", m.index()); err != nil {
		return nil, err
	}
	if files[FileModelsPage], err = executeHTML("models.html", m.modelsPage()); err != nil {
		return nil, err
	}
	for _, svc := range m.services {
		if files[ServicePage(svc.Slug)], err = executeHTML("service.html", m.servicePage(svc)); err != nil {
			return nil, fmt.Errorf("%s: %w", svc.Slug, err)
		}
		if files[ServiceFeed(svc.Slug)], err = m.serviceFeed(svc); err != nil {
			return nil, fmt.Errorf("%s: %w", svc.Slug, err)
		}
		badges := map[string]badge{"": statusBadge(svc), "-uptime": uptimeBadge(svc)}
		for _, sf := range svc.others() {
			badges[surfaceKind(sf.ID)] = surfaceBadge(svc, sf)
		}
		for kind, b := range badges {
			files[BadgeFile(svc.Slug, kind, "svg")] = b.svg()
			if files[BadgeFile(svc.Slug, kind, "json")], err = b.endpointJSON(); err != nil {
				return nil, fmt.Errorf("%s: %w", svc.Slug, err)
			}
		}
	}
	if files[FileFeed], err = m.incidentsFeed(); err != nil {
		return nil, err
	}
	if err := m.renderMore(files); err != nil {
		return nil, err
	}
	var llms bytes.Buffer
	if err := llmsTemplate.Execute(&llms, m.llms()); err != nil {
		return nil, fmt.Errorf("render %s: %w", FileLLMs, err)
	}
	files[FileLLMs] = llms.Bytes()
	if files[FileAPICatalog], err = apiCatalog(m.base); err != nil {
		return nil, err
	}
	return files, nil
}

func executeHTML(name string, data any) ([]byte, error) {
	var buf bytes.Buffer
	if err := pageTemplates.ExecuteTemplate(&buf, name, data); err != nil {
		return nil, fmt.Errorf("render %s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// model is the snapshot prepared for the templates.
type model struct {
	docs snapshot.Documents
	// base is the site's public address without a trailing slash.
	base     string
	now      time.Time
	services []*service
	bySlug   map[string]*service
	// h is the history the documents were assembled from; nil for none.
	h *history.History
	// modelList is every watched model's row (modelRows), in models.json's
	// order.
	modelList []modelRow
	// said is the situation's subjects by id (docs.Situation): every
	// status the pages, /metrics and the façade show of a service, a
	// surface or a model is read here, not from the documents, so that
	// none of them can say something else of a subject than the others.
	said subjectsByID
}

// subjectsByID is the snapshot's situation (api.Situation), its
// subjects by id.
type subjectsByID map[string]api.SituationSubject

// status is the situation's status of the subject id; unknown for a
// subject it does not have.
func (s subjectsByID) status(id string) api.Status {
	if sub, ok := s[id]; ok {
		return sub.Status
	}
	return api.Unknown
}

// basis is the situation's basis of a service's or a surface's subject;
// none for a subject it does not have.
func (s subjectsByID) basis(id string) api.Basis {
	if sub, ok := s[id]; ok {
		return api.Basis(sub.Basis)
	}
	return api.BasisNone
}

// service is one tracked service as the pages show it.
type service struct {
	api.ServiceDoc
	// State is the situation's status of the service's API; said is the
	// situation, for its surfaces'.
	State StatusInfo
	said  subjectsByID
	// Figures are the uptime windows of the API: 24 h, 7 and 30 days.
	Figures []uptimeFigure
	Chart   chart
	// TTFT are the measured models' time-to-first-token charts.
	TTFT []ttftChart
	// Latency is our probe's latency chart; nil without probes.
	Latency *latencyChart
}

type uptimeFigure struct {
	Window string
	Value  *float64
	// Coverage is the share of the window with data (api.Coverage).
	Coverage float64
}

// Text is the figure as people see it: "not enough data" while less than
// history.MinCoverage of its window has data, rather than a percentage
// computed from a few minutes.
func (f uptimeFigure) Text() string { return history.UptimeText(f.Value, f.Coverage) }

func newModel(docs snapshot.Documents, h *history.History) *model {
	m := &model{
		docs:   docs,
		h:      h,
		base:   strings.TrimSuffix(docs.Manifest.BaseURL, "/"),
		now:    docs.Manifest.GeneratedAt.UTC(),
		bySlug: map[string]*service{},
		said:   subjectsByID{},
	}
	for _, sub := range docs.Situation.Subjects {
		m.said[sub.ID] = sub
	}
	for _, doc := range docs.Services {
		var sh *history.ServiceHistory
		if h != nil {
			sh = h.Services[doc.Slug] // read only: h.Service would add an entry
		}
		svc := &service{
			ServiceDoc: doc,
			State:      Status(m.said.status(doc.Slug)),
			said:       m.said,
			Figures: []uptimeFigure{
				{"24 h", doc.Uptime.H24, doc.UptimeCoverage.H24},
				{"7 d", doc.Uptime.D7, doc.UptimeCoverage.D7},
				{"30 d", doc.Uptime.D30, doc.UptimeCoverage.D30},
			},
			Chart:   dailyChart(doc.Name, sh, m.now),
			TTFT:    ttftCharts(doc, sh, m.now),
			Latency: probeLatencyChart(doc, sh, m.now),
		}
		m.services = append(m.services, svc)
		m.bySlug[doc.Slug] = svc
	}
	m.modelList = m.modelRows()
	return m
}

// serviceName is the name of the service an incident belongs to; the slug
// when the service is no longer tracked.
func (m *model) serviceName(slug string) string {
	if svc := m.bySlug[slug]; svc != nil {
		return svc.Name
	}
	return slug
}

// StatusInfo is how a status is presented: never by colour alone, always
// with its words and an icon of its own shape. The words are the api
// table's (api.StatusTable); the colours are the pages' own.
type StatusInfo struct {
	// Key is the API value ("partial_outage"); it names the CSS class and icon.
	Key api.Status
	// Label is the text on the pages ("Partial outage").
	Label string
	// BadgeColor is the shields.io colour name and BadgeHex its value.
	BadgeColor, BadgeHex string
	// Issue is true for the statuses that count as a service with issues:
	// degraded or worse.
	Issue bool
	// Word says it in a word or two, on badges and as the cards' "API up
	// · claude.ai major outage".
	Word string
}

// statusColors are each status's shields.io colour name and value.
var statusColors = map[api.Status][2]string{
	api.Operational:   {"brightgreen", "#4c1"},
	api.Degraded:      {"yellow", "#dfb317"},
	api.PartialOutage: {"orange", "#fe7d37"},
	api.MajorOutage:   {"red", "#e05d44"},
	api.Maintenance:   {"blue", "#007ec6"},
	api.Unknown:       {"lightgrey", "#9f9f9f"},
}

// Status returns how s is presented; an unrecognised status reads as unknown.
func Status(s api.Status) StatusInfo {
	say := s.Say()
	color := statusColors[say.Status]
	return StatusInfo{Key: say.Status, Label: say.Label, BadgeColor: color[0], BadgeHex: color[1],
		Issue: say.Status.AtLeast(api.Degraded), Word: say.Word}
}

func humanTime(t time.Time) string { return t.UTC().Format("2 Jan 2006, 15:04 UTC") }

// plural is "1 service" or "3 services".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func itoa(n int) string { return strconv.Itoa(n) }
