package notify

import (
	"slices"

	"github.com/aistatus/aistatus/api"
)

// Filter chooses the changes a destination is sent. Its zero value
// lets every change through, but for a chat destination's default minimum
// status (DefaultChatMinStatus).
type Filter struct {
	// Services are slugs: the service's API status, its surfaces and its
	// incidents. With Surfaces and Models empty too, every subject passes.
	Services []string `json:"services,omitempty"`
	// Surfaces are "<slug>/<surface>" ("anthropic/app"), alone.
	Surfaces []string `json:"surfaces,omitempty"`
	// Models are watched model ids ("anthropic/claude-sonnet-4.5").
	Models []string `json:"models,omitempty"`
	// MinStatus is the least bad status a status change must leave or
	// reach to be sent: "partial_outage" sends a fall into a partial or
	// major outage and the recovery from it, not a degraded spell.
	MinStatus api.Status `json:"minStatus,omitempty"`
	// MinSeverity is the least severe incident whose changes are sent.
	MinSeverity api.Severity `json:"minSeverity,omitempty"`
}

// DefaultChatMinStatus is a chat destination's MinStatus when none is
// given: a status page going unknown and back (a feed that failed once)
// is not worth a message in a channel people read.
const DefaultChatMinStatus = api.Degraded

// passes reports whether c is for a destination with this filter. A chat
// destination is not sent a service's or surface's first check (a status
// with no old one): that is aistatus starting to watch, not a transition.
func (f Filter) passes(c api.Change, chat bool) bool {
	if len(f.Services)+len(f.Surfaces)+len(f.Models) > 0 && !f.names(c) {
		return false
	}
	switch c.Type {
	case api.ChangeStatus, api.ChangeSurfaceStatus, api.ChangeModelStatus,
		// A recovery is filtered as the status change it follows: its old
		// status is the outage it ends.
		api.ChangeServiceRecovered, api.ChangeSurfaceRecovered, api.ChangeModelRecovered:
		if chat && c.OldStatus == "" {
			return false
		}
		least := f.MinStatus
		if least == "" && chat {
			least = DefaultChatMinStatus
		}
		return least == "" || atLeast(c.OldStatus, least) || atLeast(c.NewStatus, least)
	case api.ChangeIncidentOpened, api.ChangeIncidentUpdated, api.ChangeIncidentResolved:
		if f.MinSeverity == "" || c.Incident == nil {
			return true
		}
		return slices.Index(api.Severities, c.Incident.Severity) >= slices.Index(api.Severities, f.MinSeverity)
	}
	return true
}

// names reports whether the filter's subjects name what c is about.
func (f Filter) names(c api.Change) bool {
	switch {
	case c.Model != nil:
		return slices.Contains(f.Models, c.Model.ID)
	case c.Surface != "":
		return slices.Contains(f.Surfaces, c.Service+"/"+string(c.Surface)) || slices.Contains(f.Services, c.Service)
	}
	return slices.Contains(f.Services, c.Service)
}

// atLeast reports whether s is least or worse. Unknown is below every
// known status, as api.Worse has it.
func atLeast(s, least api.Status) bool {
	return s.Valid() && api.Worse(least, s) == s
}
