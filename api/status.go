package api

// Status is the current state of a tracked service.
type Status string

// The full set of statuses. The original API contract shows only
// "operational"; the rest are
// ours (see docs/api.md, "Decisions on the spec's gaps").
const (
	Operational   Status = "operational"
	Degraded      Status = "degraded"
	PartialOutage Status = "partial_outage"
	MajorOutage   Status = "major_outage"
	Maintenance   Status = "maintenance"
	// Unknown means we could not tell: the official page had no word and our
	// probes, which cannot show that a service is up, showed no outage; or
	// there is no data yet. It is never reported as an outage.
	Unknown Status = "unknown"
)

// Statuses lists every status, best first.
var Statuses = []Status{Operational, Degraded, PartialOutage, MajorOutage, Maintenance, Unknown}

// rank orders the statuses that describe availability, worst highest. Maintenance
// ranks below any outage: a service that is both under maintenance and down is down.
var rank = map[Status]int{Unknown: 0, Operational: 1, Maintenance: 2, Degraded: 3, PartialOutage: 4, MajorOutage: 5}

// Valid reports whether s is one of the defined statuses.
func (s Status) Valid() bool { _, ok := rank[s]; return ok }

// Worse returns the worse of a and b. Unknown loses to any known status: a
// component we could read beats one we could not.
func Worse(a, b Status) Status {
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// Basis is what a status rests on (docs/api.md, "How a status is decided").
type Basis string

// The bases of a status. Only BasisMeasured rests on the API serving
// requests: our probe only tells whether the API host answers.
const (
	// BasisOfficial: the official status page says so, for the service's
	// scope: its word this cycle, or its last word while that may stand in
	// (history.MaxHold).
	BasisOfficial Basis = "official"
	// BasisProbe: our probes decided it. They overrule the page's word (an
	// outage it does not declare, or our own incident still open); or,
	// where the page has no word, they failed often enough to show an
	// outage, or they did not, and the status is unknown: a host that
	// answers cannot show the service works.
	BasisProbe Basis = "probe"
	// BasisMeasured: our own completions decided it (history.ServiceMeasured):
	// they fail while the page and our probe say better, or neither had a
	// word and they succeed. Only services whose operator set a key have it.
	BasisMeasured Basis = "measured"
	// BasisNone: nothing to go on (no page's word, no probe's); the status
	// is unknown.
	BasisNone Basis = "none"
)

// Bases lists every basis, strongest first.
var Bases = []Basis{BasisOfficial, BasisMeasured, BasisProbe, BasisNone}

// Valid reports whether b is one of Bases.
func (b Basis) Valid() bool {
	return b == BasisOfficial || b == BasisMeasured || b == BasisProbe || b == BasisNone
}

// Severity is an incident's severity.
type Severity string

// The three incident severities; an official impact of "none" maps to minor.
const (
	Minor    Severity = "minor"
	Major    Severity = "major"
	Critical Severity = "critical"
)

// Severities lists the valid severities, mildest first.
var Severities = []Severity{Minor, Major, Critical}

// Valid reports whether s is one of the three severities.
func (s Severity) Valid() bool { return s == Minor || s == Major || s == Critical }
