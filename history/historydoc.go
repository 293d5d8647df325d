package history

import (
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// HistoryBasis says where a history day's figures come from.
const HistoryBasis = "Daily rollups of our per-cycle checks (each check's status holds until the next, at most 15 minutes; " +
	"no check is no data), one row per complete UTC day, kept for years. Uptime and downtime are weighted as in the " +
	"uptime windows; incidents are those (official and our probe's) that started that day. The same rows are in the " +
	"monthly dataset files (" + snapshot.FileDatasets + ")."

// HistoryDayOf is a rollup row as the API shows it.
func HistoryDayOf(r DayRow) api.HistoryDay {
	t := r.Time
	m := func(s float64) float64 { return math3(s / 60) }
	d := api.HistoryDay{Date: r.Date, Uptime: r.Uptime(), Coverage: r.Coverage(),
		Minutes: api.StatusMinutes{Operational: m(t.Operational), Degraded: m(t.Degraded), PartialOutage: m(t.Partial),
			MajorOutage: m(t.Major), Maintenance: m(t.Maintenance), Unknown: m(t.Unknown), Downtime: m(t.down())},
		Incidents: api.IncidentCounts{Total: r.Incidents, Minor: r.Minor, Major: r.Major, Critical: r.Critical},
		Probes:    t.Probes}
	if t.Probes > 0 {
		avg := math3(t.LatencyMs / float64(t.Probes))
		d.LatencyMs = &avg
	}
	return d
}

// NewHistoryDoc is slug's whole daily history, the static file.
func NewHistoryDoc(h *History, slug, base string, now time.Time) api.HistoryDoc {
	rows := h.Days.Rows(KindService, slug, "", "")
	doc := api.HistoryDoc{Service: slug, Basis: HistoryBasis, Days: make([]api.HistoryDay, 0, len(rows)),
		Dataset: strings.TrimSuffix(base, "/") + "/" + snapshot.FileDatasets, Timestamp: now.UTC(), License: api.License}
	for _, r := range rows {
		doc.Days = append(doc.Days, HistoryDayOf(r))
	}
	if len(rows) > 0 {
		doc.From, doc.To = rows[0].Date, rows[len(rows)-1].Date
	}
	return doc
}
