package snapshot

import (
	"cmp"
	"slices"
	"time"
)

// Incident is one incident of one service, official or detected by our probes.
// The first six fields are the spec's; the rest are ours.
type Incident struct {
	ID        string     `json:"id"`
	Service   string     `json:"service"`
	Headline  string     `json:"headline"`
	Severity  Severity   `json:"severity"`
	StartedAt time.Time  `json:"startedAt"`
	EndedAt   *time.Time `json:"endedAt"`
	// Status is the incident's own progress: investigating, identified,
	// monitoring, resolved (official feeds), or ongoing/resolved (probe incidents).
	Status string `json:"status"`
	// Source is "official" (the service's status feed) or "probe" (ours).
	Source    string    `json:"source"`
	URL       string    `json:"url,omitempty"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Incident sources.
const (
	SourceOfficial = "official"
	SourceProbe    = "probe"
)

// Open reports whether the incident has not ended.
func (i Incident) Open() bool { return i.EndedAt == nil }

// SortIncidents orders incidents newest startedAt first, then by id so that
// the order is stable across builds.
func SortIncidents(list []Incident) {
	slices.SortFunc(list, func(a, b Incident) int {
		if c := b.StartedAt.Compare(a.StartedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}
