package api

import "time"

// Vantages is what every vantage point saw of a service's API host in the
// latest cycle: the builder's own probe and the fresh results of each
// replica started with --vantage, and the rule's reading of them. It is
// added evidence for the probe: the official page's word and the probe's
// rules stand, with the regional rule on top.
type Vantages struct {
	// Reading is one of VantageReadings.
	Reading string `json:"reading"`
	// Reporting counts the vantages with a fresh result; Reaching those
	// whose probe the host answered.
	Reporting int `json:"reporting"`
	Reaching  int `json:"reaching"`
	// Detail says the reading in words, naming the vantages that fail.
	Detail string `json:"detail"`
	// Points are each vantage's result, the builder's first, then by name.
	Points []VantagePoint `json:"points"`
}

// VantagePoint is one vantage's latest probe of the host.
type VantagePoint struct {
	Name string `json:"name"`
	// State is ProbeOK or ProbeFailed.
	State string `json:"state"`
	// LatencyMs is the time to the answer's headers; null when failed.
	LatencyMs *float64  `json:"latencyMs"`
	At        time.Time `json:"at"`
}

// The readings of Vantages.
const (
	// VantageReachable: every reporting vantage reaches the host.
	VantageReachable = "reachable"
	// VantageUnreachable: none does — the provider's host is failing.
	VantageUnreachable = "unreachable"
	// VantageRegional: some fail while others reach it — a regional or
	// network path problem of the failing ones, never a service outage.
	VantageRegional = "regional"
	// VantageTooFew: too few to tell — fewer than MinVantages report, or
	// the builder's own probe fails while fewer than MinOthersReaching
	// other vantages reach the host (its failure counts).
	VantageTooFew = "too_few"
)

// VantageReadings lists the values of Vantages.Reading.
var VantageReadings = []string{VantageReachable, VantageUnreachable, VantageRegional, VantageTooFew}

// MinVantages is the fewest reporting vantages the rule compares.
const MinVantages = 2

// MinOthersReaching is the fewest other vantages (not the builder's own)
// that must reach the host for the builder's own failed probe to be set
// aside as regional: one report could be one vantage's mistake, or one
// writer's lie.
const MinOthersReaching = 2
