package api

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Incident is one incident of one service, official or detected by our probes.
// The first six fields are the API contract's; the rest are ours.
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

// ProbeIncidentAfter consecutive failed probes, while the official feed
// declares no outage, open our own incident (SourceProbe): one lost packet
// is not an outage.
const ProbeIncidentAfter = 3

// Open reports whether the incident has not ended.
func (i Incident) Open() bool { return i.EndedAt == nil }

// SortIncidents orders incidents newest startedAt first, then by id so that
// the order is stable across builds.
func SortIncidents(list []Incident) { slices.SortFunc(list, CompareIncidents) }

// CompareIncidents is the order of SortIncidents, for whoever sorts
// something that carries incidents.
func CompareIncidents(a, b Incident) int {
	if c := b.StartedAt.Compare(a.StartedAt); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// OfficialIncidentID is the id of an official incident: the service's slug
// and the upstream identifier (an id, a guid, a URL, an ARN), made safe and
// readable. It is deterministic, so an incident keeps its id across builds.
func OfficialIncidentID(slug, upstream string) string {
	id := safeID(upstream)
	if id == "" {
		return ""
	}
	return slug + "-" + id
}

// ProbeIncidentID is the id of our own incident that began at start.
func ProbeIncidentID(slug string, start time.Time) string {
	return fmt.Sprintf("%s-probe-%d", slug, start.Unix())
}

// MaxIDLength bounds the upstream part of an id; a longer one is hashed.
const MaxIDLength = 200

// safeID drops a URL scheme and turns every character outside
// [A-Za-z0-9._:-] into "-", so that an id is safe in a URL path, an HTML
// attribute and a CSV cell whatever the upstream page put in it.
func safeID(s string) string {
	s = strings.TrimSpace(s)
	for _, scheme := range []string{"https://", "http://"} {
		if len(s) > len(scheme) && strings.EqualFold(s[:len(scheme)], scheme) {
			s = s[len(scheme):]
			break
		}
	}
	out := []byte(s)
	for i, c := range out {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == ':', c == '-':
		default:
			out[i] = '-'
		}
	}
	id := strings.Trim(string(out), "-")
	if len(id) > MaxIDLength {
		return HashID(s)
	}
	return id
}

// HashID names something that has no identifier of its own by a short hash
// of what identifies it.
func HashID(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}
