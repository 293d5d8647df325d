package feed

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aistatus/aistatus/snapshot"
)

// TestFormats goes over the table of formats and every list that must stay
// literal beside it: the catalog's vocabulary (snapshot.FeedFormats, which
// snapshot cannot take from here) and the OpenAPI document's FeedFormat
// enum, both in the table's order. Every format but none has a name, an
// adapter and fixtures; none has no adapter.
func TestFormats(t *testing.T) {
	formats := Formats()
	var ids []snapshot.FeedFormat
	names := map[string]snapshot.FeedFormat{}
	for _, f := range formats {
		ids = append(ids, f.ID)
		if f.Name == "" {
			t.Errorf("%s: no name", f.ID)
		} else if other, dup := names[f.Name]; dup {
			t.Errorf("%s and %s are both named %q", other, f.ID, f.Name)
		}
		names[f.Name] = f.ID
		if got, ok := Lookup(f.ID); !ok || got.ID != f.ID {
			t.Errorf("Lookup(%q) = %+v, %v", f.ID, got, ok)
		}
	}
	if !slices.Equal(ids, snapshot.FeedFormats) {
		t.Errorf("Formats() = %v, snapshot.FeedFormats = %v: the same formats in the same order", ids, snapshot.FeedFormats)
	}
	if enum := openapiFeedFormats(t); !slices.Equal(enum, ids) {
		t.Errorf("openapi.json's FeedFormat enum = %v, want %v (Formats(), in order)", enum, ids)
	}
	if _, ok := Lookup("carrier-pigeon"); ok {
		t.Error("Lookup found a format that is not in the table")
	}

	adapters := Adapters()
	for _, f := range formats {
		t.Run(string(f.ID), func(t *testing.T) {
			if f.ID == snapshot.FormatNone {
				if f.Adapter != nil || adapters[f.ID] != nil {
					t.Errorf("none reads nothing, but has an adapter")
				}
				return
			}
			if f.Adapter == nil || adapters[f.ID] == nil {
				t.Fatalf("no adapter")
			}
			if !hasFixtures(t, f.ID) {
				t.Errorf("no fixture in testdata/ named %s-… or %s_…, nor a capture testdata/real/%s-…", f.ID, f.ID, f.ID)
			}
		})
	}
	if len(adapters) != len(formats)-1 {
		t.Errorf("Adapters() has %d formats, want %d (all but none)", len(adapters), len(formats)-1)
	}
	delete(adapters, snapshot.FormatStatuspage)
	if Adapters()[snapshot.FormatStatuspage] == nil {
		t.Error("changing one returned map changed the next one")
	}
}

// openapiFeedFormats reads the FeedFormat enum of the OpenAPI document on
// disk, which is kept by hand.
func openapiFeedFormats(t *testing.T) []snapshot.FeedFormat {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	var schema struct {
		Enum []snapshot.FeedFormat `json:"enum"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if err := json.Unmarshal(doc.Components.Schemas["FeedFormat"], &schema); err != nil {
		t.Fatalf("openapi.json's FeedFormat: %v", err)
	}
	return schema.Enum
}

// hasFixtures reports whether testdata holds a hand-made fixture or a real
// capture of format id, by the naming of the folders.
func hasFixtures(t *testing.T, id snapshot.FeedFormat) bool {
	t.Helper()
	for _, pattern := range []string{string(id) + "-*", string(id) + "_*", filepath.Join("real", string(id)+"-*")} {
		names, err := filepath.Glob(filepath.Join("testdata", pattern))
		if err != nil {
			t.Fatal(err)
		}
		if len(names) > 0 {
			return true
		}
	}
	return false
}
