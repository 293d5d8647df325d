package site

import (
	"fmt"
	"time"

	"github.com/aistatus/aistatus/history"
)

// Chart geometry, in SVG user units: the chart is drawn in a fixed viewBox
// and stretched to the width of its container.
const (
	barWidth  = 8
	barStep   = 10
	barHeight = 32
)

// chart is a service's daily uptime over the last ChartDays days, oldest
// first, ending with today (UTC) so far.
type chart struct {
	Bars []bar
	// Label summarises the chart for screen readers.
	Label string
	// Width and Height are the viewBox, BarWidth the width of one bar.
	Width, Height, BarWidth int
}

type bar struct {
	Day    time.Time
	Uptime *float64
	// Class picks the colour: up, minor, partial, major or nodata.
	Class string
	// Title is the hover text, which also says what the colour means.
	Title string
	X     int
}

// dailyChart computes one bar per UTC day from the hourly buckets, each
// with history.ServiceHistory.UptimePercent over that day (up to now for
// today), so that a bar follows exactly the rule of the API's figures.
func dailyChart(name string, sh *history.ServiceHistory, now time.Time) chart {
	c := chart{Width: ChartDays*barStep - (barStep - barWidth), Height: barHeight, BarWidth: barWidth, Bars: make([]bar, 0, ChartDays)}
	today := now.UTC().Truncate(24 * time.Hour)
	var withData int
	var lowest *bar
	for i := range ChartDays {
		day := today.AddDate(0, 0, i-(ChartDays-1))
		end := day.Add(24 * time.Hour)
		if end.After(now) {
			end = now // today so far
		}
		b := bar{Day: day, X: i * barStep}
		if sh != nil {
			b.Uptime = sh.UptimePercent(day, end)
		}
		b.Class = barClass(b.Uptime)
		when := day.Format("Mon 2 Jan 2006")
		if day.Equal(today) {
			when += " (today so far)"
		}
		if b.Uptime == nil {
			b.Title = when + ": no data"
		} else {
			b.Title = when + ": " + history.FormatPercent(b.Uptime) + " uptime"
		}
		c.Bars = append(c.Bars, b)
		if b.Uptime != nil {
			withData++
			if lowest == nil || *b.Uptime < *lowest.Uptime {
				lowest = &c.Bars[len(c.Bars)-1]
			}
		}
	}
	switch {
	case withData == 0:
		c.Label = fmt.Sprintf("Daily uptime of %s over the last %d days: no data yet.", name, ChartDays)
	case *lowest.Uptime == 100:
		c.Label = fmt.Sprintf("Daily uptime of %s over the last %d days: 100%% on each of the %d days with data; %d without data.",
			name, ChartDays, withData, ChartDays-withData)
	default:
		c.Label = fmt.Sprintf("Daily uptime of %s over the last %d days: %d days with data, the lowest %s on %s; %d without data.",
			name, ChartDays, withData, history.FormatPercent(lowest.Uptime), lowest.Day.Format("2 Jan"), ChartDays-withData)
	}
	return c
}

// barClass maps a day's uptime to a colour band; the hover text and the
// figures carry the value itself.
func barClass(p *float64) string {
	switch {
	case p == nil:
		return "nodata"
	case *p >= 99.9:
		return "up"
	case *p >= 99:
		return "minor"
	case *p >= 95:
		return "partial"
	}
	return "major"
}
