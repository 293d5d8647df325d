package api

import (
	"time"
)

// The /services/{slug}/history query rules.
const (
	// DefaultHistoryDays is the span answered when from is not sent: the
	// 90 days up to to.
	DefaultHistoryDays = 90
	// MaxHistoryDays bounds one request's span (from and to included).
	MaxHistoryDays = 366
)

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
