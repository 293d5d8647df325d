package api

import "slices"

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

// Statuses lists every status in the order the API documents them (its
// OpenAPI enum): the healthy one, the three degrees of trouble, then the
// two that are neither. Their one order of trouble is StatusTable's.
var Statuses = []Status{Operational, Degraded, PartialOutage, MajorOutage, Maintenance, Unknown}

// StatusSay is one status as every output says it: the pages, the badges,
// /check's verdicts, the statusline and the chat alerts take their words
// and their emoji from here, so that degraded is ⚠️ and "degraded"
// wherever it is read.
type StatusSay struct {
	Status Status
	// Word is the status in a word or two ("partial outage"), as a
	// statusline, a badge or an alert's "degraded → up" says it.
	Word string
	// Emoji is the one icon of the status in text ("🟠").
	Emoji string
	// Label is the text on the pages ("Partial outage").
	Label string
	// Usable is true for the statuses a caller can send requests to now:
	// operational, and degraded (slower, some errors, but serving).
	Usable bool
}

// StatusTable is every status exactly once, in the one order of trouble,
// least first: operational, then unknown (not known to be trouble, not
// known to be fine), maintenance (no outage, but not fully usable), then
// degraded, a partial and a major outage. Every order of statuses is
// derived from it: Worse (with unknown losing to any known status on top),
// MoreTrouble (the order as it stands, for whoever shows unknown as a
// mild trouble), and CompareUsable (where a model or service can be used
// now, best first).
var StatusTable = []StatusSay{
	{Operational, "up", "✅", "Operational", true},
	{Unknown, "unknown", "❔", "Unknown", false},
	{Maintenance, "maintenance", "🛠️", "Under maintenance", false},
	{Degraded, "degraded", "⚠️", "Degraded performance", true},
	{PartialOutage, "partial outage", "🟠", "Partial outage", false},
	{MajorOutage, "major outage", "🔴", "Major outage", false},
}

// statusPlace is each status's index in StatusTable.
var statusPlace = func() map[Status]int {
	m := make(map[Status]int, len(StatusTable))
	for i, say := range StatusTable {
		m[say.Status] = i
	}
	return m
}()

// Valid reports whether s is one of the defined statuses.
func (s Status) Valid() bool { _, ok := statusPlace[s]; return ok }

// Say is how s is said; an unrecognised status is said as unknown.
func (s Status) Say() StatusSay {
	if i, ok := statusPlace[s]; ok {
		return StatusTable[i]
	}
	return StatusTable[statusPlace[Unknown]]
}

// Word is s in a word or two (StatusSay.Word).
func (s Status) Word() string { return s.Say().Word }

// Emoji is s's icon (StatusSay.Emoji).
func (s Status) Emoji() string { return s.Say().Emoji }

// Label is s as the pages label it (StatusSay.Label).
func (s Status) Label() string { return s.Say().Label }

// Usable reports whether a caller can use a service or model in status s
// now (StatusSay.Usable).
func (s Status) Usable() bool { return s.Say().Usable }

// Trouble is s's place in the order of trouble, 0 for operational; an
// unrecognised status has unknown's.
func (s Status) Trouble() int { return statusPlace[s.Say().Status] }

// AtLeast reports whether s is at least as much trouble as t: degraded
// or worse, a partial outage or worse.
func (s Status) AtLeast(t Status) bool { return s.Trouble() >= t.Trouble() }

// known reports whether s is a status other than unknown.
func (s Status) known() bool { return s.Valid() && s != Unknown }

// Worse returns the worse of a and b in the order of trouble, with one
// rule on top: unknown loses to any known status, for a component we
// could read beats one we could not. An unrecognised status reads as
// unknown.
func Worse(a, b Status) Status {
	switch {
	case !b.known():
		return a
	case !a.known():
		return b
	}
	return MoreTrouble(a, b)
}

// MoreTrouble returns the one of a and b later in the order of trouble
// (a when equal), unknown in its place above operational: for an output
// that shows unknown as a mild trouble, never "all operational".
func MoreTrouble(a, b Status) Status {
	if b.Trouble() > a.Trouble() {
		return b
	}
	return a
}

// CompareUsable orders two statuses by where a service or model can be
// used now, best first (a negative number when a is better): the usable
// statuses, then the others, each in the order of trouble; unknown (and
// an unrecognised status) last, for it is not a status to pick.
func CompareUsable(a, b Status) int {
	return usability(a) - usability(b)
}

func usability(s Status) int {
	switch {
	case !s.known():
		return 2 * len(StatusTable)
	case s.Usable():
		return s.Trouble()
	}
	return len(StatusTable) + s.Trouble()
}

// ByUsability is every status, best first by CompareUsable.
func ByUsability() []Status {
	out := make([]Status, 0, len(StatusTable))
	for _, say := range StatusTable {
		out = append(out, say.Status)
	}
	slices.SortStableFunc(out, CompareUsable)
	return out
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
