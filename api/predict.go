package api

import (
	"fmt"
	"strings"
	"time"
)

// Reliability is what a service's retained history says about its
// incidents: the service document's "reliability" and a row of
// /reliability.
type Reliability struct {
	// Source says what the figures are computed from (history.ReliabilitySource).
	Source string `json:"source"`
	// Since is the start of the oldest incident or outage counted; nil
	// when none is.
	Since *time.Time `json:"since"`
	// MinBasis is the count a percentile needs (history.MinBasis).
	MinBasis         int                `json:"minBasis"`
	IncidentDuration DurationBySeverity `json:"incidentDuration"`
	Acknowledgement  Acknowledgement    `json:"acknowledgement"`
}

// DurationBySeverity is the incident duration of each severity.
type DurationBySeverity struct {
	Minor    DurationStats `json:"minor"`
	Major    DurationStats `json:"major"`
	Critical DurationStats `json:"critical"`
}

// Of returns the figures of severity s (minor for an unknown one).
func (d DurationBySeverity) Of(s Severity) DurationStats {
	switch s {
	case Critical:
		return d.Critical
	case Major:
		return d.Major
	}
	return d.Minor
}

// Phrase says the durations of the severities with percentiles, for people
// and agents: "major p50 47 min, p90 183 min (12); critical …", or "" when
// no severity has enough incidents behind it.
func (d DurationBySeverity) Phrase() string {
	var parts []string
	for _, sev := range Severities {
		s := d.Of(sev)
		if s.P50Minutes != nil && s.P90Minutes != nil {
			parts = append(parts, fmt.Sprintf("%s p50 %d min, p90 %d min (%d)", sev, *s.P50Minutes, *s.P90Minutes, s.Incidents))
		}
	}
	return strings.Join(parts, "; ")
}

// DurationStats is how long the ended official incidents of one severity
// lasted, in whole minutes; the percentiles are nil below history.MinBasis.
type DurationStats struct {
	Incidents  int  `json:"incidents"`
	P50Minutes *int `json:"p50Minutes"`
	P90Minutes *int `json:"p90Minutes"`
}

// Acknowledgement is how the official page answered the outages our probes
// saw while it declared none. The lag is measured to the first check that
// read the acknowledgement, so it is an upper bound by up to one interval
// between checks; the green minutes a lower bound by as much.
type Acknowledgement struct {
	// Outages counts them; Acknowledged those the page acknowledged before
	// our probes recovered.
	Outages      int `json:"outages"`
	Acknowledged int `json:"acknowledged"`
	// LagP50Minutes and LagP90Minutes are over the acknowledged outages;
	// GreenP50Minutes and GreenP90Minutes over all of them. Nil below
	// history.MinBasis.
	LagP50Minutes   *int `json:"lagP50Minutes"`
	LagP90Minutes   *int `json:"lagP90Minutes"`
	GreenP50Minutes *int `json:"greenP50Minutes"`
	GreenP90Minutes *int `json:"greenP90Minutes"`
}

// ReliabilityDoc is the response of GET /reliability: every service's
// reliability, for /check and for whoever compares providers.
type ReliabilityDoc struct {
	Services  []ServiceReliability `json:"services"`
	Timestamp time.Time            `json:"timestamp"`
	License   string               `json:"license"`
}

// ServiceReliability is one service's row of ReliabilityDoc.
type ServiceReliability struct {
	Slug        string      `json:"slug"`
	Name        string      `json:"name"`
	Reliability Reliability `json:"reliability"`
}

// ExpectedResolution is /check's estimate of how long an open official
// incident lasts in all, from the durations of the service's ended
// incidents of the same severity; omitted below history.MinBasis of them.
type ExpectedResolution struct {
	// Incident is the open incident it is for; Severity its severity.
	Incident string   `json:"incident"`
	Severity Severity `json:"severity"`
	// StartedAt is when it began: the minutes count from there.
	StartedAt  time.Time `json:"startedAt"`
	P50Minutes int       `json:"p50Minutes"`
	P90Minutes int       `json:"p90Minutes"`
	// Basis is the number of incidents the percentiles rest on.
	Basis int `json:"basis"`
}
