package build

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/site"
	"github.com/aistatus/aistatus/catalog"
)

// TestFacadeLeavesUnknownSurfacesOut serves Cohere's real summary of
// 2026-07-23 without its Coral and Playground components (a read of the
// page that carries no component of the app's nor of the console's,
// nothing else changed) through full builds. The API is operational (every
// model is; the incident is the dashboard's), the app and the console
// unknown. The façade must not raise Cohere's indicator, nor say "Status
// Unknown: aistatus cannot tell whether the service is up", for surfaces
// it cannot read: it says none, "All Systems Operational", of the API
// group it lists, and names the two in aistatus.unknownSurfaces.
func TestFacadeLeavesUnknownSurfacesOut(t *testing.T) {
	t.Parallel()
	real, err := os.ReadFile(filepath.Join("feed", "testdata", "real", "incidentio-cohere-20260723.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(real, &doc); err != nil {
		t.Fatal(err)
	}
	comps, _ := doc["components"].([]any)
	kept := slices.DeleteFunc(slices.Clone(comps), func(c any) bool {
		name, _ := c.(map[string]any)["name"].(string)
		return name == "Coral" || name == "Playground"
	})
	if len(kept) != len(comps)-2 {
		t.Fatal("the capture no longer lists Coral and Playground once each")
	}
	doc["components"] = kept
	page, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}

	b := newPageBuilds(t, "cohere", page)
	b.cycle()
	got := map[catalog.SurfaceID]api.Status{}
	for _, sf := range b.service("cohere").Surfaces {
		got[sf.ID] = sf.Status
	}
	if want := map[catalog.SurfaceID]api.Status{"api": api.Operational, "app": api.Unknown, "console": api.Unknown}; !maps.Equal(got, want) {
		t.Fatalf("surfaces %v, want %v", got, want)
	}
	var summary struct {
		Status     spStatusDoc `json:"status"`
		Components []struct {
			ID, Status string
			GroupID    *string `json:"group_id"`
		} `json:"components"`
		AIStatus struct {
			Status          api.Status `json:"status"`
			UnknownSurfaces []string   `json:"unknownSurfaces"`
			Surfaces        map[string]struct {
				Status api.Status `json:"status"`
			} `json:"surfaces"`
		} `json:"aistatus"`
	}
	b.read(site.StatuspageDir("cohere")+"/summary.json", &summary)
	if want := (spStatusDoc{"none", "All Systems Operational"}); summary.Status != want {
		t.Errorf("status %+v, want %+v: the API is operational, and nothing else is shown", summary.Status, want)
	}
	for _, c := range summary.Components {
		if c.ID != "cohere" && (c.GroupID == nil || *c.GroupID != "cohere") {
			t.Errorf("component %s (group %v) listed: only the API's group and its members are known", c.ID, c.GroupID)
		}
		if c.Status != "operational" {
			t.Errorf("component %s is %s, want operational", c.ID, c.Status)
		}
	}
	if len(summary.Components) == 0 {
		t.Error("no component listed: the API's group is")
	}
	a := summary.AIStatus
	if !slices.Equal(a.UnknownSurfaces, []string{"cohere/app", "cohere/console"}) || a.Status != api.Operational ||
		a.Surfaces["cohere/app"].Status != api.Unknown || a.Surfaces["cohere/console"].Status != api.Unknown {
		t.Errorf("aistatus %+v, want the API operational and cohere/app, cohere/console unknown and left out", a)
	}
}

// spStatusDoc is a Statuspage v2 page status.
type spStatusDoc struct {
	Indicator   string `json:"indicator"`
	Description string `json:"description"`
}
