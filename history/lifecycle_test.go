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

// TestRetiredOnlyWhenNoListCarriesIt: each gateway lists what it serves,
// so a pinned model one gateway's list lacks is not retired while another
// gateway's good list carries it; once no list does, each list that lacks
// it says so.
func TestRetiredOnlyWhenNoListCarriesIt(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	pinned := cat.Models.Pinned[0]
	other := cat.Models.Pinned[1]
	list := func(models ...catalog.Model) *ModelList {
		l := &ModelList{Reads: Reads{CheckedAt: now, ReadAt: now}}
		for _, m := range models {
			l.Models = append(l.Models, ListedModel{ID: m.ID, Name: m.Name})
		}
		return l
	}
	for _, tc := range []struct {
		name  string
		lists map[string]*ModelList
		want  []string // the sources retiring the pinned model
	}{
		{"only Vercel's list carries it", map[string]*ModelList{
			catalog.GatewayOpenRouter: list(other), catalog.GatewayVercel: list(pinned, other)}, nil},
		{"only OpenRouter's list carries it", map[string]*ModelList{
			catalog.GatewayOpenRouter: list(pinned, other), catalog.GatewayVercel: list(other)}, nil},
		{"no list carries it", map[string]*ModelList{
			catalog.GatewayOpenRouter: list(other), catalog.GatewayVercel: list(other)},
			[]string{"openrouter-models 2026-11-01 retired", "vercel-models 2026-11-01 retired"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var said []string
			for _, r := range AssembleLifecycle(&History{}, cat, tc.lists, nil, nil, nil, nil, now) {
				if r.ID != pinned.ID {
					continue
				}
				for _, s := range r.Sources {
					said = append(said, s.Source+" "+s.Date+" "+s.State)
				}
			}
			slices.Sort(said)
			if !slices.Equal(said, tc.want) {
				t.Errorf("%s: %q, want %q", pinned.ID, said, tc.want)
			}
		})
	}
}
