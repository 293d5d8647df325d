package history

import (
	"slices"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// TestLegacyRetirement: an entry written before entries carried sources
// keeps its one source.
func TestLegacyRetirement(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	legacy := api.ModelRetirement{ID: "x-ai/grok-4", Name: "Grok 4", Service: "xai", Date: "2026-10-30", State: api.RetirementRetired,
		Source: "openrouter-models", Reason: "OpenRouter's model list no longer carries the model (noticed on this date)"}
	got := AssembleLifecycle(&History{}, cat, nil, nil, nil, nil, []api.ModelRetirement{legacy}, time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	var said []string
	for _, r := range got {
		for _, s := range r.Sources {
			said = append(said, s.Source+" "+s.Date+" "+s.State)
		}
	}
	if len(got) != 1 || !slices.Equal(said, []string{"openrouter-models 2026-10-30 retired"}) || got[0].Date != legacy.Date {
		t.Errorf("a legacy entry became %+v", got)
	}
}
