package site

import (
	"fmt"
	"math"
	"time"

	"github.com/aistatus/aistatus/snapshot"
)

// ttftHours is how many hourly bars a model's time-to-first-token chart has.
const ttftHours = 24

// ttftChart is one model's time to first token over the last ttftHours,
// one bar per hour: its height the hour's median TTFT against the chart's
// highest, its colour whether the hour had failures.
type ttftChart struct {
	snapshot.MeasuredModel
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

// ttftCharts draws each measured model's chart from the history's samples,
// by the same rules as the published figures (snapshot.PercentilesOf).
func ttftCharts(doc snapshot.ServiceDoc, sh *snapshot.ServiceHistory, now time.Time) []ttftChart {
	var out []ttftChart
	for _, m := range doc.Measured {
		var samples []snapshot.CompletionSample
		if sh != nil {
			samples = sh.Completions[m.Model]
		}
		out = append(out, ttftChartOf(m, samples, now))
	}
	return out
}

func ttftChartOf(m snapshot.MeasuredModel, samples []snapshot.CompletionSample, now time.Time) ttftChart {
	c := ttftChart{MeasuredModel: m, State: Status(m.Status), Width: ttftHours*barStep - (barStep - barWidth), Height: barHeight, BarWidth: barWidth}
	type hour struct {
		ttft       []float64
		ok, failed int
		median     *float64
		start      time.Time
	}
	hours := make([]hour, ttftHours)
	first := now.UTC().Truncate(time.Hour).Add(-(ttftHours - 1) * time.Hour)
	for i := range hours {
		hours[i].start = first.Add(time.Duration(i) * time.Hour)
	}
	for _, s := range samples {
		i := int(s.At.UTC().Sub(first) / time.Hour)
		if s.At.Before(first) || i >= ttftHours || !s.Outcome.Counted() {
			continue
		}
		if s.Outcome.ProviderFailure() {
			hours[i].failed++
			continue
		}
		hours[i].ok++
		if s.TTFTMs != nil {
			hours[i].ttft = append(hours[i].ttft, *s.TTFTMs)
		}
	}
	highest := 0.0
	for i := range hours {
		hours[i].median = snapshot.PercentilesOf(hours[i].ttft).P50
		if p := hours[i].median; p != nil {
			highest = math.Max(highest, *p)
		}
	}
	for i, h := range hours {
		b := ttftBar{X: i * barStep, Y: 0, H: c.Height}
		when := h.start.Format("15:04") + " UTC"
		switch {
		case h.ok+h.failed == 0:
			b.Class, b.Title = "nodata", when+": no completion"
		case h.median == nil:
			b.Class, b.Title = "major", fmt.Sprintf("%s: all %d completions failed", when, h.failed)
		default:
			b.H = max(2, int(math.Round(*h.median/highest*float64(c.Height))))
			b.Y = c.Height - b.H
			b.Class = "up"
			b.Title = fmt.Sprintf("%s: time to first token %.0f ms (median of %d)", when, *h.median, h.ok)
			if h.failed > 0 {
				b.Class = "minor"
				b.Title += fmt.Sprintf(", %d failed", h.failed)
			}
		}
		c.Bars = append(c.Bars, b)
	}
	c.Label = fmt.Sprintf("Hourly median time to first token of %s over the last %d hours", m.Model, ttftHours)
	if p := m.Windows.Day.TTFTMs; p.P50 != nil {
		c.Label += fmt.Sprintf(": p50 %.0f ms, p95 %.0f ms over 24 h", *p.P50, *p.P95)
	} else {
		c.Label += ": no successful completion"
	}
	c.Label += "."
	return c
}
