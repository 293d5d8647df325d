package snapshot

import (
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// TestNewCloudEvent: each kind of change is typed and addressed by its
// subject id, the service's slug, "<slug>/<surface>" or "model:<id>", and
// its data carries what tells it apart.
func TestNewCloudEvent(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 1, 14, 3, 0, 0, time.FixedZone("", 3600))
	tests := []struct {
		name         string
		change       api.Change
		typ, subject string
	}{
		{"service", api.Change{ID: 1, Type: api.ChangeStatus, Service: "anthropic", Time: at, OldStatus: api.Operational, NewStatus: api.Degraded},
			"ai.aistatus.status.changed", "anthropic"},
		{"surface", api.Change{ID: 2, Type: api.ChangeSurfaceStatus, Service: "anthropic", Surface: catalog.SurfaceApp, Time: at,
			OldStatus: api.Operational, NewStatus: api.MajorOutage}, "ai.aistatus.surface.status.changed", "anthropic/app"},
		{"model of a tracked maker", api.Change{ID: 3, Type: api.ChangeModelStatus, Service: "anthropic", Model: &api.ChangeModel{ID: "anthropic/claude-sonnet-4.5", Name: "Claude Sonnet 4.5"},
			Time: at, OldStatus: api.Operational, NewStatus: api.PartialOutage}, "ai.aistatus.model.status.changed", "model:anthropic/claude-sonnet-4.5"},
		{"open-weight model", api.Change{ID: 4, Type: api.ChangeModelStatus, Model: &api.ChangeModel{ID: "meta-llama/llama-4-scout", Name: "Llama 4 Scout"}, Time: at,
			OldStatus: api.Degraded, NewStatus: api.Operational}, "ai.aistatus.model.status.changed", "model:meta-llama/llama-4-scout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev := NewCloudEvent(tt.change, "https://aistatus.example/")
			c := tt.change
			if ev.Type != tt.typ || ev.Subject != tt.subject || ev.ID != api.ChangeIDString(c.ID) ||
				ev.Source != "https://aistatus.example/api/v1" || !ev.Time.Equal(at) || ev.Time.Location() != time.UTC {
				t.Errorf("event %+v, want type %s subject %s", ev, tt.typ, tt.subject)
			}
			if d := ev.Data; d.Service != c.Service || d.Surface != c.Surface || d.Model != c.Model ||
				d.OldStatus != c.OldStatus || d.NewStatus != c.NewStatus {
				t.Errorf("data %+v, want that of %+v", d, c)
			}
		})
	}
}
