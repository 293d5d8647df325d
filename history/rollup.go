package history

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
)

// The daily rollups: what is kept of a service for years, after its hourly
// buckets (KeepBuckets) and incidents (KeepIncidents) are pruned. Each is
// one row per subject and UTC day — about 200 bytes in a CSV, so ten years
// of a service are under 1 MB — kept in the monthly dataset files
// (dataset.go), which are the store: a closed month's file is never
// rewritten, and the next build reads the rows back from the previous
// snapshot.
const (
	// Day is the span of one rollup row, a UTC calendar day.
	Day = 24 * time.Hour
	// KindService is the kind of a service's rows. Rows are keyed by kind
	// and subject, so that surfaces and models can have rows of their own
	// ("surface", "openai/chat") without a new format.
	KindService = "service"
	// LongWindowSplit is where the 90-day and 1-year windows switch from
	// the hourly buckets to the daily rows: the start of the UTC day 30
	// days back, well inside KeepBuckets.
	LongWindowSplit = 30 * Day
)

// DayRow is one subject's rollup of one UTC day: the time in each status
// (seconds, as the buckets have it; minutes in the files), the incidents
// that started that day and the probes' latency.
type DayRow struct {
	Date    string // YYYY-MM-DD
	Kind    string
	Subject string
	// Time is the seconds spent in each status, the probes and the sum of
	// their latency, as a Bucket holds them (its T unused).
	Time Bucket
	// Incidents counts the incidents that started that day, by severity.
	Incidents, Minor, Major, Critical int
}

// Uptime is the day's uptime percentage, as UptimePercent computes it; nil
// when nothing was observed.
func (r DayRow) Uptime() *float64 { return percentOf(r.Time) }

// Coverage is the share of the day with a known status (maintenance
// included), rounded down to three decimals.
func (r DayRow) Coverage() float64 { return coverageOf(r.Time, Day) }

// DaySeries are rollup rows, keyed by kind and subject, each list in date
// order.
type DaySeries map[string][]DayRow

// SeriesKey is the key of a subject's rows in DaySeries.
func SeriesKey(kind, subject string) string { return kind + ":" + subject }

// Put adds row, replacing the row of the same subject and date.
func (s DaySeries) Put(row DayRow) {
	key := SeriesKey(row.Kind, row.Subject)
	rows := s[key]
	i, found := slices.BinarySearchFunc(rows, row.Date, func(r DayRow, d string) int { return strings.Compare(r.Date, d) })
	if found {
		rows[i] = row
		return
	}
	s[key] = slices.Insert(rows, i, row)
}

// Rows returns a subject's rows with dates in [from, to] (YYYY-MM-DD,
// inclusive; "" for no bound).
func (s DaySeries) Rows(kind, subject, from, to string) []DayRow {
	rows := s[SeriesKey(kind, subject)]
	lo := 0
	if from != "" {
		lo, _ = slices.BinarySearchFunc(rows, from, func(r DayRow, d string) int { return strings.Compare(r.Date, d) })
	}
	hi := len(rows)
	if to != "" {
		hi, _ = slices.BinarySearchFunc(rows, to, func(r DayRow, d string) int { return strings.Compare(r.Date, d) })
		if hi < len(rows) && rows[hi].Date == to {
			hi++
		}
	}
	if lo >= hi {
		return nil
	}
	return rows[lo:hi]
}

// RollUp records in h.Days the rows of every service for each complete
// UTC day that its retained buckets cover whole, up to yesterday. It runs
// every build, before Prune: a row is recomputed while its buckets last
// (so that a late credit — Restate, the check just after midnight — is
// in), and kept as it was last computed once they are gone. Incident
// counts are of the retained incidents.
func (h *History) RollUp(now time.Time) {
	if h.Days == nil {
		h.Days = DaySeries{}
	}
	today := now.UTC().Truncate(Day)
	type counts struct{ all, minor, major, critical int }
	started := map[string]map[string]*counts{}
	for _, inc := range h.Incidents {
		if !inc.StartedAt.Before(today) {
			continue
		}
		date := inc.StartedAt.UTC().Format(time.DateOnly)
		if started[inc.Service] == nil {
			started[inc.Service] = map[string]*counts{}
		}
		c := started[inc.Service][date]
		if c == nil {
			c = &counts{}
			started[inc.Service][date] = c
		}
		c.all++
		switch inc.Severity {
		case api.Minor:
			c.minor++
		case api.Major:
			c.major++
		case api.Critical:
			c.critical++
		}
	}
	for slug, sh := range h.Services {
		if len(sh.Buckets) == 0 {
			continue
		}
		for d := sh.wholeDaysFrom(); d.Before(today); d = d.Add(Day) {
			row := DayRow{Date: d.Format(time.DateOnly), Kind: KindService, Subject: slug, Time: sh.window(d, d.Add(Day))}
			row.Time.Probes, row.Time.LatencyMs = sh.probes(d, d.Add(Day))
			if c := started[slug][row.Date]; c != nil {
				row.Incidents, row.Minor, row.Major, row.Critical = c.all, c.minor, c.major, c.critical
			}
			h.Days.Put(row)
		}
	}
}

// probes sums the probes and their latency of the buckets in [from, to).
func (sh *ServiceHistory) probes(from, to time.Time) (n int, latencyMs float64) {
	lo, hi := from.Unix(), to.Unix()
	for _, b := range sh.Buckets {
		if b.T >= lo && b.T < hi {
			n += b.Probes
			latencyMs += b.LatencyMs
		}
	}
	return n, latencyMs
}

// wholeDaysFrom is the first UTC day whose retained buckets are the whole
// of what was recorded that day: the oldest bucket's day when it starts at
// midnight or the service's first check was that day (nothing of it was
// pruned), else the day after.
func (sh *ServiceHistory) wholeDaysFrom() time.Time {
	oldest := time.Unix(sh.Buckets[0].T, 0).UTC()
	day := oldest.Truncate(Day)
	if oldest.Equal(day) || (!sh.FirstChecked.IsZero() && !sh.FirstChecked.Before(day)) {
		return day
	}
	return day.Add(Day)
}

// The long uptime windows.
const (
	Window90d = 90 * Day
	Window1y  = 365 * Day
)

// Windows is a service's uptime and coverage over every window: 24 h, 7 d
// and 30 d from the buckets, 90 d and 1 y with the daily rows (LongWindow).
func (h *History) Windows(slug string, now time.Time) (api.Uptime, api.Coverage) {
	sh := h.Lookup(slug)
	up, cov := sh.Uptime(now), sh.Coverage(now)
	up.D90, cov.D90 = h.LongWindow(slug, Window90d, now)
	up.Y1, cov.Y1 = h.LongWindow(slug, Window1y, now)
	return up, cov
}

// LongWindow is the uptime and coverage of a service over [now−span, now)
// for spans longer than the buckets keep (90 days, a year): the hourly
// buckets from the start of the UTC day LongWindowSplit back, the daily
// rows before it, the first day counted pro rata.
func (h *History) LongWindow(slug string, span time.Duration, now time.Time) (*float64, float64) {
	from := now.Add(-span)
	split := now.Add(-LongWindowSplit).UTC().Truncate(Day)
	recent := split
	if from.After(split) {
		recent = from
	}
	sum := h.Lookup(slug).window(recent, now)
	rows := h.Days.Rows(KindService, slug, from.UTC().Format(time.DateOnly), split.Add(-Day).Format(time.DateOnly))
	for _, r := range rows {
		share := 1.0
		if day, err := time.Parse(time.DateOnly, r.Date); err == nil && day.Before(from) {
			share = day.Add(Day).Sub(from).Seconds() / Day.Seconds()
		}
		sum.addScaled(r.Time, share)
	}
	return percentOf(sum), coverageOf(sum, span)
}

// addScaled adds share × the status time (and its part from the page's
// timeline) and the probes of o to b.
func (b *Bucket) addScaled(o Bucket, share float64) {
	b.Operational += share * o.Operational
	b.Degraded += share * o.Degraded
	b.Partial += share * o.Partial
	b.Major += share * o.Major
	b.Maintenance += share * o.Maintenance
	b.Unknown += share * o.Unknown
	b.Timeline += share * o.Timeline
	b.LatencyMs += share * o.LatencyMs
	b.Probes += int(math.Round(share * float64(o.Probes)))
}

// percentOf is 100 × (observed − downtime) / observed, rounded down to
// three decimals so that any downtime shows as less than 100; nil when
// nothing was observed.
func percentOf(t Bucket) *float64 {
	observed, down := t.observed(), t.down()
	if observed <= 0 {
		return nil
	}
	// The epsilon keeps a value that is exactly representable in decimal
	// (64.6) from losing a thousandth to binary rounding (64.59999…).
	pct := math.Floor(100*(observed-down)/observed*1000+1e-6) / 1000
	return &pct
}

// coverageOf is the share of span with a known status (maintenance
// included), rounded down to three decimals, at most 1.
func coverageOf(t Bucket, span time.Duration) float64 {
	c := (t.observed() + t.Maintenance) / span.Seconds()
	return math.Min(1, math.Floor(c*1000+1e-6)/1000)
}
