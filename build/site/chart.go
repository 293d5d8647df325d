package site

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
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

// Rects is the chart's bars as SVG, each with its hover text.
func (c chart) Rects() template.HTML {
	var b strings.Builder
	for _, bar := range c.Bars {
		writeRect(&b, bar.Class, bar.X, -1, c.BarWidth, c.Height, bar.Title)
	}
	return template.HTML(b.String())
}

// TableRows is the chart as the rows of a table, a day and its uptime each,
// for screen readers and for reading the figures (built here, as Rects is).
func (c chart) TableRows() template.HTML {
	var b strings.Builder
	for _, bar := range c.Bars {
		b.WriteString("\n<tr><td><time datetime=\"")
		b.WriteString(bar.Day.UTC().Format(time.DateOnly))
		b.WriteString(`">`)
		b.WriteString(bar.Day.UTC().Format("2 Jan 2006"))
		b.WriteString("</time></td><td>")
		b.WriteString(template.HTMLEscapeString(history.FormatPercent(bar.Uptime)))
		b.WriteString("</td></tr>")
	}
	return template.HTML(b.String())
}

// hourRects is an hourly chart's bars as SVG, each as tall as its figure.
func hourRects(bars []ttftBar, width int) template.HTML {
	var b strings.Builder
	for _, bar := range bars {
		writeRect(&b, bar.Class, bar.X, bar.Y, width, bar.H, bar.Title)
	}
	return template.HTML(b.String())
}

// writeRect writes one bar of a chart: <rect class="bar CLASS" x="X"
// [y="Y"] width="W" height="H" rx="1.5"><title>TITLE</title></rect>, y left
// out when it is negative (a bar that fills the chart's height).
//
// Written here rather than ranged over in a template: each bar was six
// escaped template actions, and the index page's 780 bars took 85 % of its
// rendering (12.9 of 15 ms; ten times that under the race detector, which
// every build in the tests pays).
func writeRect(b *strings.Builder, class string, x, y, width, height int, title string) {
	b.WriteString(`<rect class="bar `)
	b.WriteString(template.HTMLEscapeString(class))
	b.WriteString(`" x="`)
	b.WriteString(strconv.Itoa(x))
	if y >= 0 {
		b.WriteString(`" y="`)
		b.WriteString(strconv.Itoa(y))
	}
	b.WriteString(`" width="`)
	b.WriteString(strconv.Itoa(width))
	b.WriteString(`" height="`)
	b.WriteString(strconv.Itoa(height))
	b.WriteString(`" rx="1.5"><title>`)
	b.WriteString(template.HTMLEscapeString(title))
	b.WriteString(`</title></rect>`)
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
