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

// VantageSource is the health of the vantages' reports as a source, in the
// latest cycle (sources.json's vantages): whether the build read them, how
// many it believed and how many it dropped, and why.
type VantageSource struct {
	// State is one of VantageSourceStates.
	State string `json:"state"`
	// Read counts the reports believed (signed, fresh, well formed).
	Read int `json:"read"`
	// Dropped counts the reports left out, by why.
	Dropped VantageDropped `json:"dropped"`
	Detail  string         `json:"detail"`
}

// VantageDropped counts the vantage reports a build left out in a cycle.
type VantageDropped struct {
	// Unsigned: no signature. BadSignature: not signed with the build's
	// key. Either was not written by a replica holding the key.
	Unsigned     int `json:"unsigned"`
	BadSignature int `json:"badSignature"`
	// Future: a report, a result in it or an entry of the index dated
	// ahead of the build's clock by more than a minute.
	Future int `json:"future"`
	// Invalid: signed, but not what a replica writes (a name, state,
	// latency or freshness out of range).
	Invalid int `json:"invalid"`
}

// The states of VantageSource.
const (
	// VantageSourceOK: the reports were read (some may have been dropped).
	VantageSourceOK = "ok"
	// VantageSourceError: Redis could not be read; the builder's probe is
	// weighed alone.
	VantageSourceError = "error"
	// VantageSourceUnkeyed: the build holds no key to check reports with,
	// so it read none; the builder's probe is weighed alone.
	VantageSourceUnkeyed = "unkeyed"
)

// VantageSourceStates lists the values of VantageSource.State.
var VantageSourceStates = []string{VantageSourceOK, VantageSourceError, VantageSourceUnkeyed}
