package notify

import (
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// TestFilter: which changes pass a destination's filter, for a chat
// destination and a Standard Webhook.
func TestFilter(t *testing.T) {
	t.Parallel()
	status := func(svc string, old, new api.Status) api.Change {
		return api.Change{Type: api.ChangeStatus, Service: svc, OldStatus: old, NewStatus: new}
	}
	surface := api.Change{Type: api.ChangeSurfaceStatus, Service: "anthropic", Surface: catalog.SurfaceApp, OldStatus: api.Operational, NewStatus: api.MajorOutage}
	model := api.Change{Type: api.ChangeModelStatus, Service: "anthropic", Model: &api.ChangeModel{ID: "anthropic/claude-sonnet-4.5", Name: "Claude Sonnet 4.5"}, OldStatus: api.Operational, NewStatus: api.MajorOutage}
	incident := func(sev api.Severity) api.Change {
		return api.Change{Type: api.ChangeIncidentOpened, Service: "openai", Incident: &api.Incident{Severity: sev}}
	}
	down := status("openai", api.Operational, api.MajorOutage)
	recovered := func(t api.ChangeType, from api.Status) api.Change {
		c := api.Change{Type: t, Service: "anthropic", OldStatus: from, NewStatus: api.Operational}
		if t == api.ChangeSurfaceRecovered {
			c.Surface = catalog.SurfaceApp
		}
		return c
	}
	tests := []struct {
		name   string
		filter Filter
		change api.Change
		chat   bool
		want   bool
	}{
		{"chat: an outage", Filter{}, down, true, true},
		{"chat: its recovery", Filter{}, status("openai", api.MajorOutage, api.Operational), true, true},
		{"chat: a first check is no transition", Filter{}, status("openai", "", api.MajorOutage), true, false},
		{"webhook: a first check is a change", Filter{}, status("openai", "", api.Operational), false, true},
		{"chat: unknown and back is below the default", Filter{}, status("openai", api.Operational, api.Unknown), true, false},
		{"webhook: unknown and back is a change", Filter{}, status("openai", api.Operational, api.Unknown), false, true},
		{"chat: minStatus operational lets it through", Filter{MinStatus: api.Operational}, status("openai", api.Unknown, api.Operational), true, true},
		{"minStatus partial_outage: degraded is below", Filter{MinStatus: api.PartialOutage}, status("openai", api.Operational, api.Degraded), true, false},
		{"minStatus partial_outage: a partial outage", Filter{MinStatus: api.PartialOutage}, status("openai", api.Degraded, api.PartialOutage), false, true},
		{"services: another service", Filter{Services: []string{"anthropic"}}, down, true, false},
		{"services: the service", Filter{Services: []string{"openai"}}, down, true, true},
		{"services: the service's surface", Filter{Services: []string{"anthropic"}}, surface, true, true},
		{"surfaces: the surface alone", Filter{Surfaces: []string{"anthropic/app"}}, surface, true, true},
		{"surfaces: not the service's API", Filter{Surfaces: []string{"anthropic/app"}}, status("anthropic", api.Operational, api.MajorOutage), true, false},
		{"services: not its maker's models", Filter{Services: []string{"anthropic"}}, model, true, false},
		{"models: the model", Filter{Models: []string{"anthropic/claude-sonnet-4.5"}}, model, true, true},
		{"minSeverity major: a minor incident", Filter{MinSeverity: api.Major}, incident(api.Minor), true, false},
		{"minSeverity major: a critical one", Filter{MinSeverity: api.Major}, incident(api.Critical), true, true},
		{"services: the service's incident", Filter{Services: []string{"openai"}}, incident(api.Minor), true, true},
		// A recovery is filtered as the status change it follows.
		{"chat: a recovery", Filter{}, recovered(api.ChangeServiceRecovered, api.Degraded), true, true},
		{"chat: minStatus partial_outage: a recovery from degraded", Filter{MinStatus: api.PartialOutage},
			recovered(api.ChangeServiceRecovered, api.Degraded), true, false},
		{"webhook: minStatus partial_outage: a recovery from degraded", Filter{MinStatus: api.PartialOutage},
			recovered(api.ChangeServiceRecovered, api.Degraded), false, false},
		{"minStatus partial_outage: a recovery from a major outage", Filter{MinStatus: api.PartialOutage},
			recovered(api.ChangeSurfaceRecovered, api.MajorOutage), true, true},
		{"surfaces: the surface's recovery", Filter{Surfaces: []string{"anthropic/app"}},
			recovered(api.ChangeSurfaceRecovered, api.MajorOutage), true, true},
		{"surfaces: not the service's recovery", Filter{Surfaces: []string{"anthropic/app"}},
			recovered(api.ChangeServiceRecovered, api.MajorOutage), true, false},
	}
	for _, tt := range tests {
		if got := tt.filter.passes(tt.change, tt.chat); got != tt.want {
			t.Errorf("%s: passes = %v, want %v", tt.name, got, tt.want)
		}
	}
}
