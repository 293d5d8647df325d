package site

import (
	"fmt"
	"html/template"
	"math"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
)

// ttftHours is how many hourly bars a model's time-to-first-token chart has.
const ttftHours = 24

// ttftChart is one model's time to first token over the last ttftHours,
// one bar per hour: its height the hour's median TTFT against the chart's
// highest, its colour whether the hour had failures.
type ttftChart struct {
	api.MeasuredModel
	State StatusInfo
	Bars  []ttftBar
	// Label summarises the chart for screen readers.
	Label                   string
	Width, Height, BarWidth int
}

type ttftBar struct {
	X, Y, H int
	// Class: up (all answered), minor (some failed), major (all failed),
	// nodata (no sample).
	Class string
	Title string
}

// Rects is the chart's bars as SVG (writeRect says why not the template).
func (c ttftChart) Rects() template.HTML { return hourRects(c.Bars, c.BarWidth) }

// ttftCharts draws each measured model's chart from the history's samples,
// by the same rules as the published figures (history.PercentilesOf).
func ttftCharts(doc api.ServiceDoc, sh *history.ServiceHistory, now time.Time) []ttftChart {
	var out []ttftChart
	for _, m := range doc.Measured {
		var samples []api.CompletionSample
		if sh != nil {
			samples = sh.Completions[m.Model]
		}
		out = append(out, ttftChartOf(m, samples, now))
	}
	return out
}

func ttftChartOf(m api.MeasuredModel, samples []api.CompletionSample, now time.Time) ttftChart {
	c := ttftChart{MeasuredModel: m, State: Status(m.Status), Width: ttftHours*barStep - (barStep - barWidth), Height: barHeight, BarWidth: barWidth}
	hours := lastHours(now)
	ttft := make([][]float64, ttftHours)
	for _, s := range samples {
		i := int(s.At.UTC().Sub(hours[0].start) / time.Hour)
		if s.At.Before(hours[0].start) || i >= ttftHours || !s.Outcome.Counted() {
			continue
		}
		if s.Outcome.ProviderFailure() {
			hours[i].failed++
			continue
		}
		hours[i].ok++
		if s.TTFTMs != nil {
			ttft[i] = append(ttft[i], *s.TTFTMs)
		}
	}
	for i := range hours {
		hours[i].median = history.PercentilesOf(ttft[i]).P50
	}
	c.Bars = hourBars(hours, c.Height, "time to first token", "completions")
	c.Label = fmt.Sprintf("Hourly median time to first token of %s over the last %d hours", m.Model, ttftHours)
	if p := m.Windows.Day.TTFTMs; p.P50 != nil {
		c.Label += fmt.Sprintf(": p50 %.0f ms, p95 %.0f ms over 24 h", *p.P50, *p.P95)
	} else {
		c.Label += ": no successful completion"
	}
	c.Label += "."
	return c
}

// hourFigure is one hour of a chart: its median and how many samples
// answered and failed.
type hourFigure struct {
	start      time.Time
	median     *float64
	ok, failed int
}

// lastHours are the ttftHours hours ending with the current one, empty.
func lastHours(now time.Time) []hourFigure {
	hours := make([]hourFigure, ttftHours)
	first := now.UTC().Truncate(time.Hour).Add(-(ttftHours - 1) * time.Hour)
	for i := range hours {
		hours[i].start = first.Add(time.Duration(i) * time.Hour)
	}
	return hours
}

// hourBars draws one bar per hour: its height the hour's median against
// the highest, amber for an hour with failures, red for one of failures
// only, grey for one without samples.
func hourBars(hours []hourFigure, height int, what, samples string) []ttftBar {
	highest := 0.0
	for _, h := range hours {
		if h.median != nil {
			highest = math.Max(highest, *h.median)
		}
	}
	bars := make([]ttftBar, 0, len(hours))
	for i, h := range hours {
		b := ttftBar{X: i * barStep, H: height}
		when := h.start.Format("15:04") + " UTC"
		switch {
		case h.median == nil && h.failed == 0:
			b.Class, b.Title = "nodata", fmt.Sprintf("%s: no %s", when, samples)
		case h.median == nil:
			b.Class, b.Title = "major", fmt.Sprintf("%s: all %d %s failed", when, h.failed, samples)
		default:
			b.H = max(2, int(math.Round(*h.median/highest*float64(height))))
			b.Y = height - b.H
			b.Class = "up"
			b.Title = fmt.Sprintf("%s: %s %.0f ms (median of %d)", when, what, *h.median, h.ok)
			if h.failed > 0 {
				b.Class = "minor"
				b.Title += fmt.Sprintf(", %d failed", h.failed)
			}
		}
		bars = append(bars, b)
	}
	return bars
}

// latencyChart is our probe's latency, hour by hour over the last
// ttftHours, from the buckets' histograms (history.LatencyOfBucket).
type latencyChart struct {
	Bars                    []ttftBar
	Label                   string
	Width, Height, BarWidth int
}

// Rects is the chart's bars as SVG (writeRect says why not the template).
func (c *latencyChart) Rects() template.HTML { return hourRects(c.Bars, c.BarWidth) }

func probeLatencyChart(doc api.ServiceDoc, sh *history.ServiceHistory, now time.Time) *latencyChart {
	if doc.ProbeLatency.D7.Samples == 0 {
		return nil
	}
	hours := lastHours(now)
	if sh != nil {
		for _, b := range sh.Buckets {
			i := int(time.Unix(b.T, 0).UTC().Sub(hours[0].start) / time.Hour)
			if b.T < hours[0].start.Unix() || i >= ttftHours {
				continue
			}
			w := history.LatencyOfBucket(b)
			hours[i].median, hours[i].ok = w.P50, w.Samples
		}
	}
	c := &latencyChart{Width: ttftHours*barStep - (barStep - barWidth), Height: barHeight, BarWidth: barWidth}
	c.Bars = hourBars(hours, c.Height, "our probe answered in", "probes")
	c.Label = fmt.Sprintf("Hourly median latency of our probe of %s's API host over the last %d hours", doc.Name, ttftHours)
	if p := doc.ProbeLatency.H24; p.P50 != nil {
		c.Label += fmt.Sprintf(": p50 %.0f ms, p95 %.0f ms over 24 h", *p.P50, *p.P95)
	}
	c.Label += "."
	return c
}
