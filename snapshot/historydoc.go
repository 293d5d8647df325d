package snapshot

import (
	"strings"
	"time"
)

// ServiceHistoryFile is the path of a service's whole daily history inside
// a snapshot: what a static host answers for /services/{slug}/history,
// every retained day; the thin server answers from/to from it. Not
// history.json: the server keeps files of that name to itself.
func ServiceHistoryFile(slug string) string { return DirServices + "/" + slug + "/daily.json" }

// The /services/{slug}/history query rules.
const (
	// DefaultHistoryDays is the span answered when from is not sent: the
	// 90 days up to to.
	DefaultHistoryDays = 90
	// MaxHistoryDays bounds one request's span (from and to included).
	MaxHistoryDays = 366
)

// HistoryBasis says where a history day's figures come from.
const HistoryBasis = "Daily rollups of our per-cycle checks (each check's status holds until the next, at most 15 minutes; " +
	"no check is no data), one row per complete UTC day, kept for years. Uptime and downtime are weighted as in the " +
	"uptime windows; incidents are those (official and our probe's) that started that day. The same rows are in the " +
	"monthly dataset files (" + FileDatasets + ")."

// HistoryDoc is a service's daily history: the /history answer and, with
// every day, the static file.
type HistoryDoc struct {
	Service string `json:"service"`
	// From and To are the days asked for (the static file: the first and
	// last day it holds; absent when it holds none).
	From  string       `json:"from,omitempty"`
	To    string       `json:"to,omitempty"`
	Basis string       `json:"basis"`
	Days  []HistoryDay `json:"days"`
	// Dataset is the index of the monthly files holding the same rows.
	Dataset   string    `json:"dataset"`
	Timestamp time.Time `json:"timestamp"`
	License   string    `json:"license"`
}

// HistoryDay is one day of a service's history.
type HistoryDay struct {
	Date string `json:"date"`
	// Uptime is nil when nothing was observed that day.
	Uptime    *float64       `json:"uptime"`
	Coverage  float64        `json:"coverage"`
	Minutes   StatusMinutes  `json:"minutes"`
	Incidents IncidentCounts `json:"incidents"`
	Probes    int            `json:"probes"`
	// LatencyMs is the probes' mean latency; nil without probes.
	LatencyMs *float64 `json:"latencyMs"`
}

// StatusMinutes is the time in each status, in minutes (three decimals).
type StatusMinutes struct {
	Operational   float64 `json:"operational"`
	Degraded      float64 `json:"degraded"`
	PartialOutage float64 `json:"partial_outage"`
	MajorOutage   float64 `json:"major_outage"`
	Maintenance   float64 `json:"maintenance"`
	Unknown       float64 `json:"unknown"`
	// Downtime is major outage plus 0.3 × partial outage.
	Downtime float64 `json:"downtime"`
}

// IncidentCounts counts the incidents that started on a day.
type IncidentCounts struct {
	Total    int `json:"total"`
	Minor    int `json:"minor"`
	Major    int `json:"major"`
	Critical int `json:"critical"`
}

// HistoryDayOf is a rollup row as the API shows it.
func HistoryDayOf(r DayRow) HistoryDay {
	t := r.Time
	m := func(s float64) float64 { return math3(s / 60) }
	d := HistoryDay{Date: r.Date, Uptime: r.Uptime(), Coverage: r.Coverage(),
		Minutes: StatusMinutes{Operational: m(t.Operational), Degraded: m(t.Degraded), PartialOutage: m(t.Partial),
			MajorOutage: m(t.Major), Maintenance: m(t.Maintenance), Unknown: m(t.Unknown), Downtime: m(t.down())},
		Incidents: IncidentCounts{Total: r.Incidents, Minor: r.Minor, Major: r.Major, Critical: r.Critical},
		Probes:    t.Probes}
	if t.Probes > 0 {
		avg := math3(t.LatencyMs / float64(t.Probes))
		d.LatencyMs = &avg
	}
	return d
}

// NewHistoryDoc is slug's whole daily history, the static file.
func NewHistoryDoc(h *History, slug, base string, now time.Time) HistoryDoc {
	rows := h.Days.Rows(KindService, slug, "", "")
	doc := HistoryDoc{Service: slug, Basis: HistoryBasis, Days: make([]HistoryDay, 0, len(rows)),
		Dataset: strings.TrimSuffix(base, "/") + "/" + FileDatasets, Timestamp: now.UTC(), License: License}
	for _, r := range rows {
		doc.Days = append(doc.Days, HistoryDayOf(r))
	}
	if len(rows) > 0 {
		doc.From, doc.To = rows[0].Date, rows[len(rows)-1].Date
	}
	return doc
}
