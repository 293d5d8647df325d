package build

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/models"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// withEntries is the real captured list with entries added after its
// first (each a copy of it with the members given changed) and ids left
// out.
func withEntries(t *testing.T, add []map[string]any, drop ...string) string {
	t.Helper()
	var doc struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal([]byte(realModelList(t)), &doc); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, e := range doc.Data {
		if !slices.Contains(drop, e["id"].(string)) {
			out = append(out, e)
		}
	}
	for _, changes := range add {
		e := map[string]any{}
		for k, v := range doc.Data[0] {
			e[k] = v
		}
		for k, v := range changes {
			e[k] = v
		}
		out = append(out, e)
	}
	doc.Data = out
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// lifecycleChanges are the model.* entries of changes.json: type and id.
func (h *harness) lifecycleChanges() []string {
	var list api.ChangeList
	h.read(snapshot.FileChanges, &list)
	var out []string
	for _, c := range list.Changes {
		if c.Model != nil {
			out = append(out, string(c.Type)+" "+c.Model.ID+" "+c.Model.Date+" "+c.Service)
		}
	}
	return out
}

// TestBuildLifecycle follows the calendar and the change log over cycles:
// the first list read retires the pinned models it lacks and dates the
// announced ones, without announcing its models as added; a steady list
// logs nothing more; a model added later is logged, with its announced
// retirement; a model back in the list leaves the calendar.
func TestBuildLifecycle(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.world.SetModelList(realModelList(t))
	h.cycle()
	first := []string{
		// Sorted by id: the dates announced (2026-05-30, 2026-06-01) are
		// past at t0, so those are retired, under their dates.
		"model.retired google/gemini-2.0-flash-001 2026-06-01 google-gemini",
		"model.retired google/gemini-2.0-flash-lite-001 2026-06-01 google-gemini",
		"model.retired mistralai/mistral-7b-instruct-v0.1 2026-05-30 mistral",
		"model.retired x-ai/grok-3-mini 2026-11-01 xai",
		"model.retired x-ai/grok-4 2026-11-01 xai",
		"model.retired x-ai/grok-code-fast-1 2026-11-01 xai",
	}
	if got := h.lifecycleChanges(); !slices.Equal(got, first) {
		t.Errorf("first list read logged\n%q\nwant\n%q", got, first)
	}

	h.clock.Advance(time.Hour)
	h.cycle()
	if got := h.lifecycleChanges(); !slices.Equal(got, first) {
		t.Errorf("a steady list logged more: %q", got[len(first):])
	}

	h.world.SetModelList(withEntries(t, []map[string]any{{"id": "anthropic/claude-opus-5", "name": "Anthropic: Claude Opus 5",
		"created": t0.Add(-24 * time.Hour).Unix(), "expiration_date": "2027-03-01"}}))
	h.clock.Advance(time.Hour)
	h.cycle()
	want := append(slices.Clone(first), "model.retiring anthropic/claude-opus-5 2027-03-01 anthropic", "model.added anthropic/claude-opus-5  anthropic")
	if got := h.lifecycleChanges(); !slices.Equal(got, want) {
		t.Errorf("a model added:\n%q\nwant\n%q", got, want)
	}

	h.world.SetModelList(withEntries(t, []map[string]any{{"id": "x-ai/grok-4", "name": "xAI: Grok 4", "created": 1752087689}}))
	h.clock.Advance(time.Hour)
	h.cycle()
	var calendar api.RetirementsDoc
	h.read(snapshot.FileModelRetirements, &calendar)
	var ids []string
	for _, r := range calendar.Retirements {
		ids = append(ids, r.ID+" "+r.State)
	}
	wantIDs := []string{"mistralai/mistral-7b-instruct-v0.1 retired", "google/gemini-2.0-flash-001 retired",
		"google/gemini-2.0-flash-lite-001 retired", "anthropic/claude-opus-5 retired", "x-ai/grok-3-mini retired", "x-ai/grok-code-fast-1 retired"}
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("calendar %q, want %q: Grok 4 back in the list is off it; Opus 5, gone from the list, retired", ids, wantIDs)
	}
}

// TestFarDatesKeepTheCalendar: a read that floods the list with entries
// announcing far dates is suspect: it dates and logs nothing, and the
// source says why. Read for a day, it is the world's word; then the flood
// cannot push the real retirements off the calendar, what the calendar's
// cap leaves out is never logged, and a read that brings the same
// announcements again logs nothing more. A maker retiring a family (four
// models dated at once) is news at once.
func TestFarDatesKeepTheCalendar(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.world.SetModelList(realModelList(t))
	h.cycle()
	var calendar api.RetirementsDoc
	h.read(snapshot.FileModelRetirements, &calendar)
	real := map[string]bool{}
	for _, r := range calendar.Retirements {
		real[r.ID] = true
	}
	if len(real) != 6 {
		t.Fatalf("%d retirements from the real list, want 6", len(real))
	}
	logged := len(h.lifecycleChanges())
	datedSince := func(from int) int {
		n := 0
		for _, c := range h.lifecycleChanges()[from:] {
			if strings.HasPrefix(c, string(api.ChangeModelRetiring)+" ") || strings.HasPrefix(c, string(api.ChangeModelRetired)+" ") {
				n++
			}
		}
		return n
	}

	var flood []map[string]any
	for i := range 600 { // past the calendar's cap of 500
		flood = append(flood, map[string]any{"id": fmt.Sprintf("openai/flood-%04d", i), "expiration_date": "2099-12-31"})
	}
	h.world.SetModelList(withEntries(t, flood))
	h.clock.Advance(time.Hour)
	h.cycle()
	var list api.ModelsDoc
	h.read(snapshot.FileModels, &list)
	if src := list.Sources[1]; src.Failure != api.FailureSuspect || !strings.Contains(src.Error, "it dates 600 models the last good read did not") {
		t.Errorf("the flood's first read: source %+v, want suspect, saying why", src)
	}
	calendar = api.RetirementsDoc{}
	h.read(snapshot.FileModelRetirements, &calendar)
	if len(calendar.Retirements) != len(real) || datedSince(logged) != 0 {
		t.Errorf("a suspect flood: %d on the calendar, %d logged; want the %d real ones and nothing logged", len(calendar.Retirements), datedSince(logged), len(real))
	}

	// The same flood read a day later is the source's word; read once
	// more, nothing more is logged.
	h.clock.Advance(models.SuspectStands)
	h.cycle()
	h.clock.Advance(time.Hour)
	h.cycle()
	calendar = api.RetirementsDoc{}
	h.read(snapshot.FileModelRetirements, &calendar)
	kept := 0
	for _, r := range calendar.Retirements {
		if real[r.ID] {
			kept++
		}
	}
	if kept != len(real) || len(calendar.Retirements) != history.MaxRetirements {
		t.Errorf("calendar of %d holds %d of the %d real retirements", len(calendar.Retirements), kept, len(real))
	}
	if dated := datedSince(logged); dated != history.MaxRetirements-len(real) {
		t.Errorf("%d retirements logged for the flood taken: want the %d the calendar keeps, once", dated, history.MaxRetirements-len(real))
	}

	// A family retired at once: four of the list's models dated in one
	// read, believed at once.
	h2 := newHarness(t)
	h2.world.SetModelList(realModelList(t))
	h2.cycle()
	before := len(h2.lifecycleChanges())
	family := []string{"openai/gpt-4o", "openai/gpt-4o-mini", "openai/gpt-4.1", "openai/gpt-4.1-mini"}
	list2 := realModelList(t)
	for _, id := range family {
		list2 = withExpirationIn(t, list2, id, "2027-01-14")
	}
	h2.world.SetModelList(list2)
	h2.clock.Advance(time.Hour)
	h2.cycle()
	got := h2.lifecycleChanges()[before:]
	for _, id := range family {
		if want := string(api.ChangeModelRetiring) + " " + id + " 2027-01-14 openai"; !slices.Contains(got, want) {
			t.Errorf("a family retired: %q lacks %q", got, want)
		}
	}
}

// FuzzModelListToRender: whatever one model list says, once it has passed
// the door the cycle assembles and renders: no entry of any list can
// fail a build.
func FuzzModelListToRender(f *testing.F) {
	f.Add([]byte(realModelList(f)))
	for _, entry := range []string{
		`{"id":"openai/future-year-10000","created":253402300800}`,
		`{"id":"openai/far","created":1760000000,"expiration_date":"9999-12-31"}`,
		`{"id":"openai/past","created":1760000000,"expiration_date":"0001-01-01"}`,
		`{"id":"anthropic/claude-x","name":"\u001b]0;x\u0007","created":1760000000,"expiration_date":"2026-11-01"}`,
		`{"id":"~anthropic/claude-x:free","created":946684800}`,
	} {
		f.Add([]byte(`{"data":[` + entry + `]}`))
	}
	cat, err := catalog.Default()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		listed, err := feed.ParseOpenRouterModels(data)
		if err != nil {
			return
		}
		list, _, err := feed.AdmitModels(feed.ModelList{Models: listed}, t0)
		if err != nil {
			return
		}
		h := history.New()
		reads := map[string]models.ListRead{catalog.GatewayOpenRouter: {List: list}}
		models.AssembleModelLists(h, cat, reads, t0, zerolog.Nop())
		models.AssembleModels(h, cat, nil, nil, t0, zerolog.Nop())
		if _, err := Render(Site{BaseURL: "https://aistatus.example", StaleAfter: time.Minute}, cat, h, nil, t0); err != nil {
			t.Fatalf("a list of %d admitted entries failed the build: %v", len(list.Models), err)
		}
	})
}
