package models

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
)

// t0 is the tests' now for the watch list and the lifecycle.
var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func TestWatchList(t *testing.T) {
	t.Parallel()
	now := t0
	cat := catalog.Catalog{Models: catalog.ModelCatalog{
		Gateways: []catalog.Gateway{{ID: catalog.GatewayOpenRouter, Enabled: true}},
		Makers:   map[string]string{"anthropic": "anthropic", "x-ai": "xai"},
		Pinned:   []catalog.Model{{ID: "anthropic/claude-sonnet-4.5", Name: "Claude Sonnet 4.5", Author: "anthropic", Service: "anthropic"}},
	}}
	listed := func(id, name string, age time.Duration) history.ListedModel {
		return history.ListedModel{ID: id, Name: name, Created: now.Add(-age)}
	}
	day := 24 * time.Hour
	for _, tc := range []struct {
		name   string
		models []history.ListedModel
		max    int // MaxWatched stand-in: 0 keeps it
		want   []string
	}{
		{"no list: only the pinned", nil, 0, []string{"anthropic/claude-sonnet-4.5"}},
		{"a mapped maker's recent models, newest first, named without the maker", []history.ListedModel{
			listed("anthropic/claude-opus-4.7", "Anthropic: Claude Opus 4.7", 200*day),
			listed("x-ai/grok-4.3", "xAI: Grok 4.3", 10*day),
		}, 0, []string{"anthropic/claude-sonnet-4.5", "x-ai/grok-4.3 Grok 4.3 xai", "anthropic/claude-opus-4.7 Claude Opus 4.7 anthropic"}},
		{"not: an unmapped maker, an old model, a variant, an alias", []history.ListedModel{
			listed("qwen/qwen3.6-plus", "Qwen: Qwen3.6 Plus", day),
			listed("anthropic/claude-3-haiku", "Anthropic: Claude 3 Haiku", 400*day),
			listed("x-ai/grok-4.3:free", "xAI: Grok 4.3 (free)", day),
			listed("~anthropic/claude-haiku-latest", "Anthropic: Claude Haiku Latest", day),
		}, 0, []string{"anthropic/claude-sonnet-4.5"}},
		{"a pinned model listed is watched once, as pinned", []history.ListedModel{
			listed("anthropic/claude-sonnet-4.5", "Anthropic: Claude Sonnet 4.5", day),
		}, 0, []string{"anthropic/claude-sonnet-4.5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lists := map[string]*history.ModelList{catalog.GatewayOpenRouter: {Models: tc.models}}
			var got []string
			for i, md := range watchList(cat, lists, now) {
				if i == 0 {
					got = append(got, md.ID)
					continue
				}
				got = append(got, md.ID+" "+md.Name+" "+md.Service)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("watched %q, want %q", got, tc.want)
			}
		})
	}
}

// TestWatchListCapped: past MaxWatched the oldest found models are left
// out, never a pinned one.
func TestWatchListCapped(t *testing.T) {
	t.Parallel()
	cat := catalog.Catalog{Models: catalog.ModelCatalog{
		Gateways: []catalog.Gateway{{ID: catalog.GatewayOpenRouter, Enabled: true}},
		Makers:   map[string]string{"openai": "openai"},
	}}
	for i := range 10 {
		cat.Models.Pinned = append(cat.Models.Pinned, catalog.Model{ID: fmt.Sprintf("meta-llama/pinned-%d", i), Name: "P", Author: "meta-llama"})
	}
	var models []history.ListedModel
	for i := range MaxWatched {
		models = append(models, history.ListedModel{ID: fmt.Sprintf("openai/m-%03d", i), Created: t0.Add(-time.Duration(i) * time.Hour)})
	}
	got := watchList(cat, map[string]*history.ModelList{catalog.GatewayOpenRouter: {Models: models}}, t0)
	if len(got) != MaxWatched || got[0].ID != "meta-llama/pinned-0" || got[10].ID != "openai/m-000" || got[MaxWatched-1].ID != fmt.Sprintf("openai/m-%03d", MaxWatched-11) {
		t.Errorf("%d watched, from %s, found from %s to %s: want the %d pinned and the newest found", len(got), got[0].ID, got[10].ID, got[len(got)-1].ID, 10)
	}
}

// TestRotation: with more models watched than the budget, each cycle
// reads at most EndpointReadsPerCycle, the least recently read first, and
// every model is read within the stated number of cycles.
func TestRotation(t *testing.T) {
	t.Parallel()
	var watched []catalog.Model
	for i := range MaxWatched {
		watched = append(watched, catalog.Model{ID: fmt.Sprintf("openai/m-%03d", i)})
	}
	mh := &history.ModelHistory{ReadAt: map[string]time.Time{}}
	cycles := (MaxWatched + EndpointReadsPerCycle - 1) / EndpointReadsPerCycle
	for c := range cycles {
		due := dueForRead(watched, mh)
		if len(due) != EndpointReadsPerCycle {
			t.Fatalf("cycle %d reads %d, want the budget %d", c, len(due), EndpointReadsPerCycle)
		}
		for _, md := range due {
			if _, read := mh.ReadAt[md.ID]; read {
				t.Fatalf("cycle %d reads %s again before every model was read", c, md.ID)
			}
			mh.ReadAt[md.ID] = t0.Add(time.Duration(c) * 5 * time.Minute)
		}
	}
	if len(mh.ReadAt) != MaxWatched {
		t.Errorf("%d of %d read in %d cycles", len(mh.ReadAt), MaxWatched, cycles)
	}
	if due := dueForRead(watched, mh); due[0].ID != "openai/m-000" {
		t.Errorf("then %s first, want the one read longest ago", due[0].ID)
	}
}
