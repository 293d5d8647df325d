package build

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/models"
	"github.com/aistatus/aistatus/snapshot"
)

// realModelList is OpenRouter's model list as captured (build/feed's
// testdata README gives its provenance).
func realModelList(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("feed", "testdata", "real", "openrouter-models-20260522.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestBuildWatchesByRule runs cycles against the loopback gateway serving
// the real captured list: its new models of mapped makers are watched
// with when they were first seen, the list is asked for at most once an
// hour and conditionally, and a list that fails leaves the last good one
// standing, its source failing.
func TestBuildWatchesByRule(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.world.SetModelList(realModelList(t))
	h.cycle()

	var list api.ModelsDoc
	h.read(snapshot.FileModels, &list)
	byID := map[string]api.ModelDoc{}
	for _, m := range list.Models {
		byID[m.ID] = m
	}
	opus := byID["anthropic/claude-opus-4.7"]
	if opus.Name != "Claude Opus 4.7" || opus.Service != "anthropic" || opus.FirstSeen == nil || !opus.FirstSeen.Equal(t0) {
		t.Errorf("a model found in the list: %+v, want it watched at Anthropic, first seen now", opus)
	}
	for _, id := range []string{"qwen/qwen3.6-max-preview", "x-ai/grok-4.3:free", "meta-llama/llama-3.3-70b-instruct"} {
		if _, watched := byID[id]; watched != (id == "meta-llama/llama-3.3-70b-instruct") {
			t.Errorf("%s watched %v: only pinned models of unmapped makers are", id, watched)
		}
	}
	if len(list.Models) <= models.EndpointReadsPerCycle || len(list.Models) > models.MaxWatched {
		t.Fatalf("%d watched: the test wants more than one cycle's reads", len(list.Models))
	}
	// Of the budget's models, the three pinned ones the captured list no
	// longer carries (x-ai/grok-4, grok-code-fast-1, grok-3-mini) are not
	// asked for: the gateway's list says it does not serve them.
	gw, listSrc := list.Sources[0], list.Sources[1]
	if gw.Reads != models.EndpointReadsPerCycle-3 {
		t.Errorf("gateway read %d documents, want the budget %d less the 3 unlisted", gw.Reads, models.EndpointReadsPerCycle)
	}
	if listSrc.Kind != api.ModelSourceList || listSrc.State != api.FeedOK || listSrc.Reads != 1 || h.world.ModelListRequests() != 1 {
		t.Errorf("list source %+v after %d requests", listSrc, h.world.ModelListRequests())
	}

	// Within the hour: not asked again; the rest of the models are read.
	h.clock.Advance(4 * time.Minute)
	h.cycle()
	var hist history.History
	h.read(snapshot.FileHistory, &hist)
	if len(hist.Models.ReadAt) != len(list.Models) || h.world.ModelListRequests() != 1 {
		t.Errorf("after two cycles %d of %d models read, the list asked for %d times", len(hist.Models.ReadAt), len(list.Models), h.world.ModelListRequests())
	}

	// An hour on: asked with its validators, unchanged; the list stands.
	h.clock.Advance(time.Hour)
	h.cycle()
	h.read(snapshot.FileModels, &list)
	if h.world.ModelListRequests() != 2 || list.Sources[1].State != api.FeedOK || !slices.ContainsFunc(list.Models, func(m api.ModelDoc) bool { return m.ID == opus.ID }) {
		t.Errorf("after a 304: %d requests, source %+v", h.world.ModelListRequests(), list.Sources[1])
	}

	// The list breaks: the last good one stands, the source fails.
	h.world.SetModelList("")
	h.clock.Advance(time.Hour)
	h.cycle()
	h.read(snapshot.FileModels, &list)
	src := list.Sources[1]
	if src.State != api.FeedError || src.Failure != api.FailureHTTP || src.ConsecutiveFailures != 1 ||
		!slices.ContainsFunc(list.Models, func(m api.ModelDoc) bool { return m.ID == opus.ID && m.FirstSeen.Equal(t0) }) {
		t.Errorf("a failing list: source %+v, %d models", src, len(list.Models))
	}
}

// TestBuildWithoutModelList: with no list to read (no network), the build
// still works, the pinned models are watched and the list is failing.
func TestBuildWithoutModelList(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.cycle()
	var list api.ModelsDoc
	h.read(snapshot.FileModels, &list)
	if len(list.Models) != len(h.world.Catalog.Models.Pinned) {
		t.Errorf("%d watched, want the %d pinned", len(list.Models), len(h.world.Catalog.Models.Pinned))
	}
	if src := list.Sources[1]; src.Kind != api.ModelSourceList || src.State != api.FeedError || src.Failure != api.FailureHTTP {
		t.Errorf("list source %+v, want failing", src)
	}
}

// TestBuildSurvivesAnyListEntry: one entry of the list that no JSON can
// hold (created in the year 10000), or dated past any sane year, costs
// only itself: the cycle publishes, the entry is not watched, the
// calendar holds no date it cannot write.
func TestBuildSurvivesAnyListEntry(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.world.SetModelList(withEntries(t, []map[string]any{
		{"id": "openai/future-year-10000", "name": "OpenAI: Future", "created": 253402300800},
		{"id": "openai/ahead", "name": "OpenAI: Ahead", "created": t0.Add(3 * time.Hour).Unix()},
		{"id": "openai/far-retirement", "name": "OpenAI: Far", "created": t0.Add(-time.Hour).Unix(), "expiration_date": "9999-12-31"},
	}))
	h.cycle()
	var list api.ModelsDoc
	h.read(snapshot.FileModels, &list)
	watched := map[string]bool{}
	for _, m := range list.Models {
		watched[m.ID] = true
	}
	if watched["openai/future-year-10000"] || watched["openai/ahead"] || !watched["openai/far-retirement"] {
		t.Errorf("watched %v: the entries of insane times must be left out, the one of an insane date kept", watched)
	}
	var calendar api.RetirementsDoc
	h.read(snapshot.FileModelRetirements, &calendar)
	for _, r := range calendar.Retirements {
		if r.ID == "openai/far-retirement" || r.Date > "2099-12-31" {
			t.Errorf("calendar holds %+v: a date past the sane years is no announcement", r)
		}
	}
}

// TestSuspectModelList: a read that lacks most of what the last good read
// listed (a cut answer) retires, adds and dates nothing, the source says
// why, and the last good list stands; a whole read is taken again at
// once; the same short list read for a day is the world's word.
func TestSuspectModelList(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.world.SetModelList(realModelList(t))
	h.cycle()
	before := h.lifecycleChanges()
	var list api.ModelsDoc
	h.read(snapshot.FileModels, &list)
	watchedBefore := len(list.Models)

	// 24 of the real list's entries.
	var doc struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal([]byte(realModelList(t)), &doc); err != nil {
		t.Fatal(err)
	}
	doc.Data = doc.Data[:24]
	short, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	h.world.SetModelList(string(short))
	h.clock.Advance(time.Hour)
	h.cycle()
	if got := h.lifecycleChanges(); !slices.Equal(got, before) {
		t.Errorf("a suspect read logged %q", got[len(before):])
	}
	list = api.ModelsDoc{}
	h.read(snapshot.FileModels, &list)
	src := list.Sources[1]
	if len(list.Models) != watchedBefore || src.State != api.FeedError || src.Failure != api.FailureSuspect ||
		!strings.Contains(src.Error, "the last good read listed") {
		t.Errorf("after a suspect read: %d watched (want %d), source %+v", len(list.Models), watchedBefore, src)
	}
	var calendar api.RetirementsDoc
	h.read(snapshot.FileModelRetirements, &calendar)
	if len(calendar.Retirements) != 6 {
		t.Errorf("%d on the calendar after a suspect read, want the 6 of the good read", len(calendar.Retirements))
	}

	// A whole read: believed again.
	h.world.SetModelList(realModelList(t))
	h.clock.Advance(time.Hour)
	h.cycle()
	list = api.ModelsDoc{}
	h.read(snapshot.FileModels, &list)
	if src := list.Sources[1]; src.State != api.FeedOK || src.Error != "" {
		t.Errorf("a whole read after a suspect one: source %+v", src)
	}

	// The same short list, hour after hour: taken once it has stood a day.
	h.world.SetModelList(string(short))
	for range 24 {
		h.clock.Advance(time.Hour)
		h.cycle()
	}
	list = api.ModelsDoc{}
	h.read(snapshot.FileModels, &list)
	if src := list.Sources[1]; src.Failure != api.FailureSuspect {
		t.Fatalf("a day less a cycle of the short list: source %+v, want still suspect", src)
	}
	h.clock.Advance(time.Hour)
	h.cycle()
	var taken api.ModelsDoc
	h.read(snapshot.FileModels, &taken)
	var hist history.History
	h.read(snapshot.FileHistory, &hist)
	if src := taken.Sources[1]; src.State != api.FeedOK || src.Error != "" {
		t.Errorf("the short list stood a day: source %+v, want it taken", src)
	}
	if l := hist.Models.Lists[catalog.GatewayOpenRouter]; l == nil || l.Suspect != nil || len(l.Models) >= watchedBefore {
		t.Errorf("the short list stood a day: the list kept is %+v", l)
	}
	if got := h.lifecycleChanges(); len(got) == len(before) {
		t.Errorf("the short list, taken, retired nothing")
	}
}

// TestSuspectFirstRead: before any good read, a read lacking more than a
// tenth of the pinned models is suspect: nothing is retired.
func TestSuspectFirstRead(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var doc struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal([]byte(realModelList(t)), &doc); err != nil {
		t.Fatal(err)
	}
	pinned := map[string]bool{}
	for _, md := range h.world.Catalog.Models.Pinned {
		pinned[md.ID] = true
	}
	// Every pinned model of Anthropic and OpenAI left out.
	kept := doc.Data[:0]
	for _, e := range doc.Data {
		id := e["id"].(string)
		if !pinned[id] || !(strings.HasPrefix(id, "anthropic/") || strings.HasPrefix(id, "openai/")) {
			kept = append(kept, e)
		}
	}
	doc.Data = kept
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	h.world.SetModelList(string(data))
	h.cycle()
	if got := h.lifecycleChanges(); len(got) != 0 {
		t.Errorf("a suspect first read logged %q", got)
	}
	var list api.ModelsDoc
	h.read(snapshot.FileModels, &list)
	if src := list.Sources[1]; src.Failure != api.FailureSuspect || !strings.Contains(src.Error, "pinned models") {
		t.Errorf("source %+v, want suspect for its pinned models", src)
	}
}
